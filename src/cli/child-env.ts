/**
 * The environment `secrets-vault run` gives its command. A vault's names and values are chosen
 * by whoever can edit the vault, who must not reach the job's machine, its token or another
 * vault through them: so the vault never sets the command's own settings (`SECRETS_VAULT_*`) nor
 * a variable that changes how a program starts or what it loads, unless the job names it with
 * `--allow-var`, and the job's token stays with the job unless `--keep-token`.
 */

/** @internal A variable the command's environment must not get; the message names it. */
export class ChildEnvError extends Error {
  override name = 'ChildEnvError';
}

/**
 * Variables that make a program load or run other code, trust other certificates, or send its
 * traffic elsewhere: what a vault editor would set to take over the job's machine.
 */
const STARTUP_VARIABLES = new Set([
  // Node.js
  'NODE_OPTIONS',
  'NODE_PATH',
  'NODE_EXTRA_CA_CERTS',
  'NODE_TLS_REJECT_UNAUTHORIZED',
  'NODE_USE_ENV_PROXY',
  'NODE_REPL_EXTERNAL_MODULE',
  // The dynamic loader
  'LD_PRELOAD',
  'LD_LIBRARY_PATH',
  'LD_AUDIT',
  'GCONV_PATH',
  // Shells
  'BASH_ENV',
  'ENV',
  'SHELLOPTS',
  'BASHOPTS',
  'PS4',
  'PROMPT_COMMAND',
  'IFS',
  'CDPATH',
  'PATH',
  'HOME',
  'ZDOTDIR',
  // Python, Perl, Ruby, the JVM
  'PYTHONSTARTUP',
  'PYTHONPATH',
  'PYTHONHOME',
  'PYTHONUSERBASE',
  'PERL5OPT',
  'PERL5LIB',
  'PERLLIB',
  'RUBYOPT',
  'RUBYLIB',
  'JAVA_TOOL_OPTIONS',
  '_JAVA_OPTIONS',
  'JDK_JAVA_OPTIONS',
  'CLASSPATH',
  // Git, which runs hooks and helpers named by these
  'GIT_SSH_COMMAND',
  'GIT_SSH',
  'GIT_EXEC_PATH',
  'GIT_CONFIG_GLOBAL',
  'GIT_CONFIG_SYSTEM',
  'GIT_ASKPASS',
  'SSH_ASKPASS',
  'EDITOR',
  'VISUAL',
  'PAGER',
  // Certificates and proxies
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'REQUESTS_CA_BUNDLE',
  'CURL_CA_BUNDLE',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'ALL_PROXY',
  'NO_PROXY',
  'http_proxy',
  'https_proxy',
  'all_proxy',
  'no_proxy',
]);
// Whole families: the loaders of Linux and macOS, and Git's config injection.
const STARTUP_PREFIXES = ['LD_', 'DYLD_', 'GIT_CONFIG_'];

/** @internal Whether a vault may set `name` only when the job allows it with `--allow-var`. */
export function changesHowProgramsStart(name: string): boolean {
  return (
    STARTUP_VARIABLES.has(name) ||
    STARTUP_VARIABLES.has(name.toUpperCase()) ||
    STARTUP_PREFIXES.some((prefix) => name.toUpperCase().startsWith(prefix))
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
  /** `--keep-token`: the command gets the job's `SECRETS_VAULT_TOKEN`. */
  readonly keepToken: boolean;
  /** `--allow-var` names: startup variables the vault may set all the same. */
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
  if (!input.keepToken) delete env.SECRETS_VAULT_TOKEN;
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
