/**
 * The environment `secrets-vault run` gives its command. A vault's names and values are chosen
 * by whoever can edit the vault, who must not reach the job's machine, its token or another
 * vault through them: so the vault never sets the command's own settings (`SECRETS_VAULT_*`) nor
 * a variable that configures a program the command may run (how it starts, what it loads, what
 * it trusts, where it connects), unless the job names it with `--allow-var`, and the job's token
 * stays with the job unless `--keep-token`.
 *
 * What the vault may not set: three tables (names, families, endings) and Go's pattern, all
 * compared upper-cased: Windows reads names in any case, and npm reads `npm_config_*` whatever
 * its case, so `npm_config_NODE_OPTIONS` is `NPM_CONFIG_NODE_OPTIONS` to the program that obeys
 * it. A refusal costs the job one `--allow-var NAME`; a miss costs it the machine: so a tool's
 * whole family is refused, not the names known to be dangerous today (npm turns
 * `npm_config_node_options` into `NODE_OPTIONS` for its scripts, Git runs `GIT_EXTERNAL_DIFF` in
 * `git diff`: neither was on a list of names).
 *
 * What stays allowed, on purpose: names an application reads for itself (`DATABASE_URL`,
 * `API_KEY`, `APP_PATH`, `FEATURE_FLAGS`), because choosing those is what editing a vault
 * means. So there is no `*_PATH`, `*_HOME`, `*_FLAGS` or `*_CONFIG` rule (applications use those
 * endings for their own settings); the loaders', compilers' and tools' variables with those
 * endings are listed by name or family instead.
 *
 * A name without `_` (`PATH`, `CC`, `GOFLAGS`) cannot come from a vault today, since `toEnv`
 * joins a secret's name and its key with one; those names are refused all the same, so the
 * rule does not depend on how names are made.
 */

/** @internal A variable the command's environment must not get; the message names it. */
export class ChildEnvError extends Error {
  override name = 'ChildEnvError';
}

/** Exact names: variables of the shell, the loaders, the compilers, and single settings of tools. */
const STARTUP_VARIABLES = new Set([
  // Shells read these at startup or before each command; a job's command is often a shell.
  'ENV',
  'SHELL',
  'SHELLOPTS',
  'BASHOPTS',
  'PS0',
  'PS1',
  'PS2',
  'PS3',
  'PS4',
  'PROMPT_COMMAND',
  'IFS',
  'CDPATH',
  'FPATH',
  'PATH',
  'HOME',
  'ZDOTDIR',
  // The GNU C library loads character-set modules from here.
  'GCONV_PATH',
  // Compilers and make, which `npm install` (node-gyp), `pip install`, `cargo` and `go` run
  // through a shell: `CC='touch /tmp/pwned; cc'` runs with no file on disk.
  'CC',
  'CXX',
  'CPP',
  'LD',
  'AR',
  'CFLAGS',
  'CXXFLAGS',
  'CPPFLAGS',
  'LDFLAGS',
  'LDLIBS',
  'MAKEFLAGS',
  'MFLAGS',
  'MAKEFILES',
  'PKG_CONFIG',
  // The JVM and its builds (`*_OPTS` and `*_OPTIONS` are suffixes below).
  'CLASSPATH',
  'JAVA_HOME',
  'MAVEN_ARGS',
  'GRADLE_USER_HOME',
  // PHP reads php.ini, whose auto_prepend_file runs code, from these.
  'PHPRC',
  'PHP_INI_SCAN_DIR',
  // Rust (with the RUSTC_, CARGO_ and RUSTUP_ families below).
  'RUSTC',
  'RUSTDOC',
  'RUSTFLAGS',
  'RUSTDOCFLAGS',
  // Go's C compiler (the rest of Go is a pattern below).
  'GCCGO',
  // Programs that other programs start: Git, man, psql, gh and python's webbrowser run these
  // (`*EDITOR` and `*PAGER` are suffixes below).
  'VISUAL',
  'BROWSER',
  'SSH_ASKPASS',
  'LESS',
  'LESSOPEN',
  'LESSCLOSE',
  'LESSKEY',
  'LESSKEYIN',
  'LESSKEY_CONTENT',
  'LESSEDIT',
  'HGRCPATH',
  // What TLS trusts, where it writes its session keys, and which modules OpenSSL loads.
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'SSLKEYLOGFILE',
  'OPENSSL_CONF',
  'OPENSSL_ENGINES',
  'OPENSSL_MODULES',
  'CURL_HOME',
  'GRPC_DEFAULT_SSL_ROOTS_FILE_PATH',
  // Where traffic goes (every `*_PROXY` is a suffix below).
  'SOCKS_SERVER',
  'SOCKS5_SERVER',
  // Container engines and clusters: the daemon that gets the build context and the credentials.
  'KUBECONFIG',
  'CONTAINER_HOST',
  'BUILDKIT_HOST',
  // Cloud tools whose configuration runs a command for credentials (`credential_process`,
  // executable-sourced credentials).
  'AWS_SHARED_CREDENTIALS_FILE',
  'GOOGLE_EXTERNAL_ACCOUNT_ALLOW_EXECUTABLES',
  // Where most command-line tools look for their configuration (Git, pip, npm's global config).
  'XDG_CONFIG_HOME',
  'XDG_CONFIG_DIRS',
]);

/**
 * Families: a tool that reads one variable of its family reads them all as its configuration,
 * and new ones arrive with each release.
 */
const STARTUP_PREFIXES = [
  // Node.js and its package managers: NODE_OPTIONS, NODE_PATH, NODE_EXTRA_CA_CERTS,
  // NODE_COMPILE_CACHE…; npm_config_node_options, _script_shell, _registry, _userconfig; Yarn's
  // npmRegistryServer; Corepack's registry (it downloads the package manager it then runs).
  'NODE_',
  'NPM_CONFIG_',
  'YARN_',
  'PNPM_',
  'BUN_',
  'DENO_',
  'COREPACK_',
  // The dynamic loaders of Linux and macOS: LD_PRELOAD, LD_LIBRARY_PATH, LD_AUDIT, DYLD_*.
  'LD_',
  'DYLD_',
  // Bash: BASH_ENV runs a file before every script, BASH_FUNC_* defines functions,
  // BASH_LOADABLES_PATH loads builtins.
  'BASH_',
  // Git runs programs named by GIT_EXTERNAL_DIFF, GIT_PAGER, GIT_EDITOR, GIT_SEQUENCE_EDITOR,
  // GIT_PROXY_COMMAND, GIT_SSH_COMMAND, GIT_ASKPASS, and GIT_CONFIG_* sets any option
  // (core.fsmonitor runs a command); GIT_DIR, GIT_TEMPLATE_DIR, GIT_EXEC_PATH choose the hooks.
  'GIT_',
  // Interpreters: PYTHONSTARTUP, PYTHONPATH, PYTHONWARNINGS (imports a module), PYTHONBREAKPOINT;
  // PERL5OPT, PERL5LIB, PERL5DB; RUBYOPT, RUBYLIB, RUBYGEMS_HOST; GEM_HOME, GEM_PATH; Bundler's
  // BUNDLE_GEMFILE (a Gemfile is Ruby); LUA_INIT, which Lua runs as code.
  'PYTHON',
  'PERL',
  'RUBY',
  'GEM_',
  'BUNDLE_',
  'LUA_',
  // Python's package tools: the index they install from (PIP_INDEX_URL, UV_INDEX_URL…).
  'PIP_',
  'UV_',
  'POETRY_',
  'PIPENV_',
  // Rust: CARGO_BUILD_RUSTC_WRAPPER, CARGO_REGISTRIES_*, RUSTC_WRAPPER, RUSTUP_DIST_SERVER.
  'CARGO_',
  'RUSTC_',
  'RUSTUP_',
  // cgo: CGO_CFLAGS, CGO_LDFLAGS reach the C compiler.
  'CGO_',
  // .NET: DOTNET_STARTUP_HOOKS loads an assembly, CORECLR_PROFILER_PATH a library.
  'DOTNET_',
  'CORECLR_',
  'COMPLUS_',
  // pkg-config: PKG_CONFIG_PATH chooses the flags builds link with.
  'PKG_CONFIG_',
  // Docker: DOCKER_HOST sends builds and their secrets to another daemon, DOCKER_CONFIG picks the
  // credential helpers it runs.
  'DOCKER_',
  // Ansible: ANSIBLE_CONFIG, and every setting of ansible.cfg as ANSIBLE_* (plugins, vault
  // password scripts).
  'ANSIBLE_',
];

/**
 * Conventions many tools share: `JAVA_OPTS`, `MAVEN_OPTS`, `GRADLE_OPTS`, `JAVA_TOOL_OPTIONS`
 * and `JDK_JAVA_OPTIONS` put flags (`-javaagent:`) on the command line of a JVM; `*_PROXY`
 * sends traffic elsewhere (`HTTP_PROXY`, `FTP_PROXY`, `GRPC_PROXY`, `SOCKS_PROXY`, `NO_PROXY`);
 * `*_CONFIG_FILE` points a tool at another configuration (`AWS_CONFIG_FILE`,
 * `TF_CLI_CONFIG_FILE`); `*_CA_BUNDLE` changes what TLS trusts; `*EDITOR` and `*PAGER` name a
 * program to run (`EDITOR`, `GIT_EDITOR`, `KUBE_EDITOR`, `PAGER`, `MANPAGER`, `PSQL_PAGER`).
 */
const STARTUP_SUFFIXES = [
  '_OPTS',
  '_OPTIONS',
  '_PROXY',
  '_CONFIG_FILE',
  '_CA_BUNDLE',
  'EDITOR',
  'PAGER',
];

/**
 * The Go toolchain's settings: one word, `GO` then letters and digits (`GOFLAGS`, `GOPROXY`,
 * `GOTOOLCHAIN`, `GOENV`, `GOPATH`, `GOROOT`, `GONOSUMDB`, `GOPRIVATE`, `GOINSECURE`,
 * `GOSUMDB`, `GOEXPERIMENT`, `GODEBUG`, `GOCACHEPROG`, `GO111MODULE`, and any a later Go adds),
 * while an application's `GOOGLE_API_KEY`, which has a `_`, passes.
 */
const GO_TOOLCHAIN_VARIABLE = /^GO[A-Z0-9]+$/;

/**
 * @internal Whether a vault may set `name` only when the job allows it with `--allow-var`: a
 * variable that configures a program the command may run, compared in any case.
 */
export function changesHowProgramsStart(name: string): boolean {
  const upper = name.toUpperCase();
  return (
    STARTUP_VARIABLES.has(upper) ||
    STARTUP_PREFIXES.some((prefix) => upper.startsWith(prefix)) ||
    STARTUP_SUFFIXES.some((suffix) => upper.endsWith(suffix)) ||
    GO_TOOLCHAIN_VARIABLE.test(upper)
  );
}

/** What {@link childEnvironment} combines. */
export interface ChildEnvInput {
  /** The vault's variables, as `toEnv` named them. */
  readonly fromVault: Readonly<Record<string, string>>;
  /** The job's own environment, its `vault://` references already resolved. */
  readonly fromJob: Readonly<Record<string, string | undefined>>;
  /** `--override`: the vault's variables replace the job's. */
  readonly override: boolean;
  /** `--keep-token`: the command gets the job's `SECRETS_VAULT_TOKEN` and `SECRETS_VAULT_TOKEN_FILE`. */
  readonly keepToken: boolean;
  /**
   * `--allow-var` names: variables the vault may set all the same, each spelled exactly as the
   * vault's variable (opening one name, never its family).
   */
  readonly allowed: ReadonlySet<string>;
}

/**
 * @internal The command's environment.
 * @throws {ChildEnvError} naming the variable (never its value) when the vault sets a
 *   `SECRETS_VAULT_*` variable, or a startup variable not allowed, or any variable holds a NUL
 */
export function childEnvironment(input: ChildEnvInput): Record<string, string> {
  for (const name of Object.keys(input.fromVault)) {
    if (name.toUpperCase().startsWith('SECRETS_VAULT_')) {
      throw new ChildEnvError(
        `the vault would set ${name}: vault contents never set the command's own SECRETS_VAULT_* settings`,
      );
    }
    if (changesHowProgramsStart(name) && !input.allowed.has(name)) {
      throw new ChildEnvError(
        `the vault would set ${name}, which changes how programs start or what they load; allow it with --allow-var ${name}`,
      );
    }
  }
  const env: Record<string, string> = {};
  const layers = input.override
    ? [input.fromJob, input.fromVault]
    : [input.fromVault, input.fromJob];
  for (const layer of layers) {
    for (const [name, value] of Object.entries(layer)) {
      if (value !== undefined) env[name] = value;
    }
  }
  // The token is the job's: a command that needs it asks with --keep-token. The fallback key
  // only ever opens the job's snapshot.
  if (!input.keepToken) {
    delete env.SECRETS_VAULT_TOKEN;
    // The file's path is the token to whoever may read the file, as the command may.
    delete env.SECRETS_VAULT_TOKEN_FILE;
  }
  delete env.SECRETS_VAULT_FALLBACK_KEY;
  for (const [name, value] of Object.entries(env)) {
    // Node would refuse to start the command, quoting the value in its error.
    if (value.includes('\0') || name.includes('\0')) {
      throw new ChildEnvError(
        `${name.replaceAll('\0', '\\0')} holds a NUL, which no environment can carry`,
      );
    }
  }
  return env;
}
