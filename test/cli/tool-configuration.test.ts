/**
 * An editor of a vault cannot log in to the job's machine, but the job's command runs tools
 * (npm, Git, Cargo, pip, Docker, a JVM) that take their configuration from the environment,
 * and some of that configuration is a program to run or a place to send traffic. The command as
 * a real child process, and real npm and Git under it: the attacks run when the job allows
 * them by name, and not otherwise.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SecretsVault } from '../../src/index.js';
import { nodeRunning, type Result, useCommand } from './harness.js';

const command = useCommand();
const { mock } = command;

/** What every seeded value holds: no error may quote it. */
const VALUE = 'vault-chosen-value';

function operator(): SecretsVault {
  return new SecretsVault({ baseUrl: command.served.url, token: mock.principals.owner.token });
}

/** A vault holding `secrets`; resolves to its id. */
async function vaultWith(secrets: Record<string, Record<string, string>>): Promise<string> {
  const client = operator();
  const vault = await client.vaults.create({ name: 'tool-configuration' });
  for (const [name, value] of Object.entries(secrets)) {
    await client.secrets.create(vault.id, { name, value });
  }
  return vault.id;
}

/** A folder of its own under the suite's scratch folder. */
function folder(name: string): string {
  const path = join(command.directory, name);
  mkdirSync(path, { recursive: true });
  return path;
}

/**
 * The job's own environment for a tool: the node that runs these tests first on PATH (npm's
 * script runs `node`), and a scratch HOME so no user or system configuration plays a part.
 */
function toolEnvironment(home: string): Record<string, string> {
  return {
    PATH: [dirname(process.execPath), process.env.PATH].join(delimiter),
    HOME: home,
    GIT_CONFIG_NOSYSTEM: '1',
    npm_config_update_notifier: 'false',
  };
}

/** Asserts that `run` stopped before starting anything, naming `name` and not the value. */
function expectRefused(result: Result, name: string, value = VALUE) {
  expect(result.code).toBe(1);
  expect(result.stdout).toBe('');
  expect(result.stderr.trim().split('\n')).toHaveLength(1);
  expect(result.stderr).toContain(`the vault would set ${name},`);
  expect(result.stderr).toContain(`--allow-var ${name}`);
  expect(result.stderr).not.toContain(value);
}

describe('npm_config_node_options', () => {
  it('refuses the NODE_OPTIONS npm gives its scripts, and the payload runs only once the job allows it', async () => {
    const project = folder('npm-project');
    const marker = join(project, 'payload-ran');
    writeFileSync(
      join(project, 'package.json'),
      JSON.stringify({ name: 'job', version: '1.0.0', scripts: { start: 'node -e ""' } }),
    );
    // No file on disk: the payload is a data: URL that npm puts in NODE_OPTIONS for `node -e`.
    const payload = `--import=data:text/javascript,import{writeFileSync}from'node:fs';writeFileSync('${marker}','')`;
    const id = await vaultWith({ npm_config: { node_options: payload } });
    const npmStart = ['--', 'npm', 'run', 'start', '--prefix', project];
    const env = toolEnvironment(folder('npm-home'));

    const refused = await command.run(['run', '--vault', id, ...npmStart], env);
    expectRefused(refused, 'NPM_CONFIG_NODE_OPTIONS', payload);
    expect(refused.stderr).not.toContain('data:');
    expect(existsSync(marker)).toBe(false);

    const allowed = await command.run(
      ['run', '--vault', id, '--allow-var', 'NPM_CONFIG_NODE_OPTIONS', ...npmStart],
      env,
    );
    expect(allowed.code).toBe(0);
    expect(existsSync(marker)).toBe(true);
  }, 30_000);
});

describe('GIT_EXTERNAL_DIFF', () => {
  it('refuses the program `git diff` runs, and it runs only once the job allows it', async () => {
    const home = folder('git-home');
    const repository = folder('git-repository');
    const marker = join(repository, '..', 'diff-program-ran');
    const git = (...args: string[]) =>
      execFileSync('git', ['-C', repository, ...args], { env: toolEnvironment(home) });
    git('init', '--quiet');
    git('config', 'user.name', 'Job');
    git('config', 'user.email', 'job@example.com');
    writeFileSync(join(repository, 'file.txt'), 'before\n');
    git('add', 'file.txt');
    writeFileSync(join(repository, 'file.txt'), 'after\n');
    const diffProgram = `touch '${marker}'; :`;
    const id = await vaultWith({ git: { external_diff: diffProgram } });
    const gitDiff = ['--', 'git', '-C', repository, 'diff'];

    const refused = await command.run(['run', '--vault', id, ...gitDiff], toolEnvironment(home));
    expectRefused(refused, 'GIT_EXTERNAL_DIFF', diffProgram);
    expect(refused.stderr).not.toContain('touch');
    expect(existsSync(marker)).toBe(false);

    const allowed = await command.run(
      ['run', '--vault', id, '--allow-var', 'GIT_EXTERNAL_DIFF', ...gitDiff],
      toolEnvironment(home),
    );
    expect(allowed.code).toBe(0);
    expect(existsSync(marker)).toBe(true);
  }, 30_000);
});

/** Variables a vault could set before whole families were refused (each refused now, in any case). */
const TOOL_VARIABLES = [
  'NPM_CONFIG_SCRIPT_SHELL',
  'NPM_CONFIG_REGISTRY',
  'NPM_CONFIG_USERCONFIG',
  'YARN_NPM_REGISTRY_SERVER',
  'PIP_INDEX_URL',
  'PIP_EXTRA_INDEX_URL',
  'GIT_PAGER',
  'GIT_EDITOR',
  'GIT_SEQUENCE_EDITOR',
  'GIT_PROXY_COMMAND',
  'GIT_DIR',
  'GIT_TEMPLATE_DIR',
  'CARGO_BUILD_RUSTC_WRAPPER',
  'RUSTC_WRAPPER',
  'DOCKER_HOST',
  'NODE_REDIRECT_WARNINGS',
  'NODE_COMPILE_CACHE',
  'FTP_PROXY',
  'GRPC_PROXY',
  'SOCKS_PROXY',
  'JAVA_OPTS',
  'MAVEN_OPTS',
  'GRADLE_OPTS',
  'ANSIBLE_CONFIG',
  'AWS_CONFIG_FILE',
  // Families a reviewer would look for next.
  'CGO_LDFLAGS',
  'PYTHON_BASIC_REPL',
  'PERL_MM_OPT',
  'RUBYGEMS_HOST',
  'BUNDLE_GEMFILE',
  'LUA_INIT',
  'UV_INDEX_URL',
  'RUSTUP_DIST_SERVER',
  'DOTNET_STARTUP_HOOKS',
  'COREPACK_NPM_REGISTRY',
  'KUBE_EDITOR',
  'AWS_CA_BUNDLE',
  'TF_CLI_CONFIG_FILE',
  'BASH_LOADABLES_PATH',
];

/**
 * A vault whose secret and key make `name` (`GIT_PAGER` from `git` + `pager`), and the prefix
 * that makes it. `mixedCase` lets the job's prefix bring the first letter in lower case
 * (`g` + `it` + `pager` → `gIT_PAGER`): programs that read names in any case (npm, Windows)
 * would obey it all the same.
 */
function seeding(name: string, mixedCase: boolean) {
  const [first = '', ...rest] = name.split('_');
  const secret = mixedCase ? first.slice(1) : first;
  const prefix = mixedCase ? (first[0] ?? '').toLowerCase() : '';
  return { secrets: { [secret]: { [rest.join('_')]: VALUE } }, prefix };
}

describe('every family of tool configuration', () => {
  it.concurrent.each(
    TOOL_VARIABLES.flatMap(
      (name) =>
        [
          [name, false],
          [name, true],
        ] as const,
    ),
  )('refuses %s (first letter in lower case: %s)', async (name, mixedCase) => {
    const { secrets, prefix } = seeding(name, mixedCase);
    const id = await vaultWith(secrets);
    const seen = prefix + name.slice(prefix.length);
    const result = await command.run([
      'run',
      '--vault',
      id,
      ...(prefix === '' ? [] : ['--prefix', prefix]),
      ...nodeRunning("console.log('the command ran')"),
    ]);
    expectRefused(result, seen);
  });

  it("lets an application's own names through, tokens of those tools and look-alikes included", async () => {
    const names = {
      DATABASE_URL: ['database', 'url'],
      API_KEY: ['api', 'key'],
      STRIPE_SECRET: ['stripe', 'secret'],
      REDIS_HOST: ['redis', 'host'],
      APP_PATH: ['app', 'path'],
      FEATURE_FLAGS: ['feature', 'flags'],
      NPM_TOKEN: ['npm', 'token'],
      GITHUB_TOKEN: ['github', 'token'],
      DOCKERHUB_TOKEN: ['dockerhub', 'token'],
      GOOGLE_API_KEY: ['google', 'api_key'],
      AWS_SECRET_ACCESS_KEY: ['aws', 'secret_access_key'],
      LDAP_PASSWORD: ['ldap', 'password'],
      PIPELINE_ID: ['pipeline', 'id'],
      NODEJS_VERSION: ['nodejs', 'version'],
    } as const;
    const secrets: Record<string, Record<string, string>> = {};
    for (const [name, [secret, key]] of Object.entries(names)) {
      secrets[secret] = { ...secrets[secret], [key]: `${VALUE}-${name}` };
    }
    const id = await vaultWith(secrets);
    const result = await command.run([
      'run',
      '--vault',
      id,
      ...nodeRunning(
        `console.log(JSON.stringify(Object.fromEntries(${JSON.stringify(Object.keys(names))}.map((n) => [n, process.env[n] ?? null]))))`,
      ),
    ]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(
      Object.fromEntries(Object.keys(names).map((name) => [name, `${VALUE}-${name}`])),
    );
  });
});
