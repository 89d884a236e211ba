/**
 * `export --format github` as a GitHub Actions step runs it, a real child process against the
 * served mock: the variables are appended to the `$GITHUB_ENV` file and read back by a port of
 * the runner's own parser (actions/runner `src/Runner.Worker/FileCommandManager.cs`,
 * `EnvFileKeyValuePairs`), every line of every value is masked by an `::add-mask::` line read back
 * as the runner reads workflow commands (`src/Runner.Common/ActionCommand.cs`, `TryParseV2`), and
 * no value can end its block early, set another variable, or issue a workflow command.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { formatGithub } from '../../src/cli/commands/export.js';
import { CommandError } from '../../src/cli/errors.js';
import { type Result, useCommand, vaultWith } from './harness.js';

// Values a vault editor might write to end a block early, set a variable of their choosing, or
// issue a workflow command through the job's log.
const HOSTILE: Record<string, string> = {
  pem: '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nBKcwggSjAgEAAoIBAQC7\n-----END PRIVATE KEY-----\n',
  crlf: 'first line\r\nsecond line\r\n',
  lone_cr: 'before\rafter\r',
  mixed: 'a\r\n\rb\n\r\nc\r',
  eof: 'EOF',
  eof_lines: 'one\nEOF\ntwo\nEOF',
  delimiters: [
    'ghadelimiter_00000000-0000-4000-8000-000000000000',
    'ghadelimiter_0123456789abcdef0123456789abcdef',
    'ghadelimiter_',
  ].join('\n'),
  heredoc: 'x\nEVIL<<X\ninjected\nX\nPATH=/tmp/evil\nEVIL2=set',
  assignment: 'INJECTED=1',
  percent: '100% %0A %25 %0D %%0A0A',
  workflow: '::set-output name=x::y\n::add-mask::\n::stop-commands::token\n%0A::error::boom',
  command_one_line: '::error file=x::boom %0A::warning::',
  empty: '',
  newline: '\n',
  blank: '  \n\t\n',
  padded: '  padded value  ',
  unicode: 'naïve 🔑 ключ',
  ends_with_newline: 'last\n',
};

const command = useCommand();
const { mock } = command;
let vaultId: string;
let githubEnv: string;
let case_ = 0;

beforeAll(async () => {
  vaultId = await vaultWith(command, 'ci', { app: HOSTILE, db: { password: 'hunter2' } });
});

/** The variables the vault gives, as `toEnv` names them. */
function expectedVariables(): [string, string][] {
  return [
    ...Object.entries(HOSTILE).map(([key, value]): [string, string] => [
      `APP_${key.toUpperCase()}`,
      value,
    ]),
    ['DB_PASSWORD', 'hunter2'],
  ];
}

/** `pairs` in name order: the vault gives its secrets in an order of its own. */
const byName = (pairs: [string, string][]) =>
  pairs.toSorted(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

/** A fresh `$GITHUB_ENV` file holding `content`, as the runner makes one for each step. */
function envFile(content = ''): string {
  githubEnv = join(command.directory, `github-env-${++case_}`);
  writeFileSync(githubEnv, content);
  return githubEnv;
}

function exportGithub(
  env: Record<string, string | undefined> = { GITHUB_ENV: envFile() },
  extra: readonly string[] = [],
): Promise<Result> {
  return command.run(['export', '--vault', vaultId, '--format', 'github', ...extra], env);
}

/**
 * The runner's `ReadLine`: up to the next `\n`, or `\r\n` on Windows; `newline` is undefined for
 * the last line when it has none, and the line undefined past the end.
 */
function readLine(
  text: string,
  state: { index: number },
  windows: boolean,
): { line: string | undefined; newline: string | undefined } {
  if (state.index >= text.length) return { line: undefined, newline: undefined };
  const start = state.index;
  const lf = text.indexOf('\n', start);
  if (lf < 0) {
    state.index = text.length;
    return { line: text.slice(start), newline: undefined };
  }
  if (windows) {
    const crlf = text.indexOf('\r\n', start);
    if (crlf >= 0 && crlf < lf) {
      state.index = crlf + 2;
      return { line: text.slice(start, crlf), newline: '\r\n' };
    }
  }
  state.index = lf + 1;
  return { line: text.slice(start, lf), newline: '\n' };
}

/**
 * The runner's `EnvFileKeyValuePairs`, rule for rule: blank lines skipped; a line is `NAME=value`
 * when its first `=` comes before any `<<`, else `NAME<<DELIMITER`, whose value is the text up to
 * the line break before the first line that is exactly the delimiter. Each block's delimiter is
 * pushed onto `delimiters`.
 */
function parseEnvFile(
  text: string,
  windows = false,
  delimiters: string[] = [],
): [string, string][] {
  const pairs: [string, string][] = [];
  const state = { index: 0 };
  for (let { line } = readLine(text, state, windows); line !== undefined; ) {
    if (line !== '') {
      const equals = line.indexOf('=');
      const heredoc = line.indexOf('<<');
      if (equals >= 0 && (heredoc < 0 || equals < heredoc)) {
        pairs.push([line.slice(0, equals), line.slice(equals + 1)]);
      } else if (heredoc >= 0 && (equals < 0 || heredoc < equals)) {
        const name = line.slice(0, heredoc);
        const delimiter = line.slice(heredoc + 2);
        if (name === '' || delimiter === '') throw new Error(`Invalid format '${line}'`);
        delimiters.push(delimiter);
        const start = state.index;
        let end = state.index;
        let next = readLine(text, state, windows);
        while (next.line !== delimiter) {
          if (next.line === undefined)
            throw new Error(`Matching delimiter not found '${delimiter}'`);
          if (next.newline === undefined) throw new Error('EOF marker missing new line.');
          end = state.index - next.newline.length;
          next = readLine(text, state, windows);
        }
        pairs.push([name, end > start ? text.slice(start, end) : '']);
      } else {
        throw new Error(`Invalid format '${line}'`);
      }
    }
    ({ line } = readLine(text, state, windows));
  }
  return pairs;
}

/**
 * The workflow commands in `stdout`, as the runner reads a step's output: line by line (.NET's
 * `ReadLine` ends a line at `\r`, `\n` or `\r\n`), a command being `::name properties::data` after
 * leading spaces, its data decoded as `UnescapeData` decodes it.
 */
function workflowCommands(stdout: string): { name: string; data: string }[] {
  const commands: { name: string; data: string }[] = [];
  for (const raw of stdout.split(/\r\n|\r|\n/)) {
    const line = raw.trimStart();
    if (!line.startsWith('::')) continue;
    const end = line.indexOf('::', 2);
    if (end < 0) continue;
    const name = line.slice(2, end).split(' ')[0] ?? '';
    const data = line
      .slice(end + 2)
      .replaceAll('%0D', '\r')
      .replaceAll('%0A', '\n')
      .replaceAll('%25', '%');
    commands.push({ name, data });
  }
  return commands;
}

/** `@actions/core`'s `escapeData`. */
const escapeData = (data: string) =>
  data.replaceAll('%', '%25').replaceAll('\r', '%0D').replaceAll('\n', '%0A');

/** The lines of `value` the runner can mask: split at `\r\n`, `\r` or `\n`, blank ones left out. */
const maskableLines = (value: string) =>
  value.split(/\r\n|\r|\n/).filter((line) => line.trim() !== '');

/** Checks that no line of a value, long enough to tell from the message's own words, is in `text`. */
function expectNoValueIn(text: string): void {
  for (const value of [...Object.values(HOSTILE), 'hunter2']) {
    for (const line of maskableLines(value)) {
      if (line.length >= 6) expect(text).not.toContain(line);
    }
  }
}

describe('export --format github', () => {
  it('appends every variable so that the runner reads each back exactly, and no other', async () => {
    const result = await exportGithub();
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const delimiters: string[] = [];
    expect(byName(parseEnvFile(readFileSync(githubEnv, 'utf8'), false, delimiters))).toEqual(
      byName(expectedVariables()),
    );
    // Each block has a delimiter of its own, drawn as @actions/core draws it.
    expect(delimiters).toHaveLength(expectedVariables().length);
    expect(new Set(delimiters).size).toBe(delimiters.length);
    for (const delimiter of delimiters) {
      expect(delimiter).toMatch(
        /^ghadelimiter_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
      );
    }
  });

  it('masks every line of every value, escaped as @actions/core escapes command data, and prints nothing else', async () => {
    const result = await exportGithub();
    expect(result.code).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines.pop()).toBe('');
    for (const line of lines) expect(line).toMatch(/^::add-mask::./);
    const commands = workflowCommands(result.stdout);
    // A value's `::set-output` or `%0A::error::` stays data: one command per printed line.
    expect(commands).toHaveLength(lines.length);
    expect(new Set(commands.map(({ name }) => name))).toEqual(new Set(['add-mask']));
    const masked = new Set(commands.map(({ data }) => data));
    for (const [name, value] of expectedVariables()) {
      for (const line of maskableLines(value)) {
        expect(masked, `${name}: ${JSON.stringify(line)}`).toContain(line);
        expect(lines).toContain(`::add-mask::${escapeData(line)}`);
      }
    }
    // The runner would warn on a blank mask, and masking spaces would hide every one in the log.
    for (const data of masked) expect(data.trim()).not.toBe('');
    // A multi-line value is also masked whole, as setSecret sends it.
    expect(masked).toContain(HOSTILE.pem);
  });

  it('keeps what the file already holds, and ends its last line when it does not', async () => {
    for (const before of ['EARLIER=kept\n', 'EARLIER=kept', 'EARLIER<<EOF\nkept\nEOF\n']) {
      const file = envFile(before);
      const result = await exportGithub({ GITHUB_ENV: file });
      expect(result.code).toBe(0);
      const written = readFileSync(file, 'utf8');
      expect(written.startsWith(before)).toBe(true);
      const [earlier, ...appended] = parseEnvFile(written);
      expect(earlier).toEqual(['EARLIER', 'kept']);
      expect(byName(appended)).toEqual(byName(expectedVariables()));
    }
  });

  it('appends again on a second run, each block with its own delimiters', async () => {
    const file = envFile();
    expect((await exportGithub({ GITHUB_ENV: file })).code).toBe(0);
    expect((await exportGithub({ GITHUB_ENV: file })).code).toBe(0);
    const delimiters: string[] = [];
    const pairs = parseEnvFile(readFileSync(file, 'utf8'), false, delimiters);
    const count = expectedVariables().length;
    expect(pairs).toHaveLength(2 * count);
    expect(byName(pairs.slice(0, count))).toEqual(byName(expectedVariables()));
    expect(pairs.slice(count)).toEqual(pairs.slice(0, count));
    expect(new Set(delimiters).size).toBe(2 * count);
  });

  it('takes --prefix', async () => {
    const result = await exportGithub({ GITHUB_ENV: envFile() }, ['--prefix', 'CI_']);
    expect(result.code).toBe(0);
    expect(byName(parseEnvFile(readFileSync(githubEnv, 'utf8')))).toEqual(
      byName(expectedVariables().map(([name, value]) => [`CI_${name}`, value])),
    );
  });

  it.each([
    ['unset', undefined],
    ['empty', ''],
  ])('exits 2 with GITHUB_ENV %s, printing nothing and sending no request', async (_, value) => {
    const counter = mock.faults.inject(
      { path: '/v1/vaults/:vaultId/secrets/values' },
      {
        kind: 'delay',
        ms: 0,
      },
    );
    try {
      const result = await exportGithub({ GITHUB_ENV: value });
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).toMatch(/--format github needs GITHUB_ENV/);
      expect(counter.hits).toBe(0);
    } finally {
      counter.clear();
    }
  });

  it('exits 1 when the file is missing, printing no mask and creating nothing', async () => {
    const missing = join(command.directory, 'no-such-github-env');
    const result = await exportGithub({ GITHUB_ENV: missing });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/cannot append to \$GITHUB_ENV .*: ENOENT/);
    expect(existsSync(missing)).toBe(false);
  });

  it('is a usage error with --output', async () => {
    const result = await exportGithub({ GITHUB_ENV: envFile() }, ['--output', 'file']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/takes no --output/);
  });

  it.each<[string, Record<string, Record<string, string>>, RegExp]>([
    [
      'changes how the later steps start',
      { bash: { env: '/tmp/evil.sh' } },
      /BASH_ENV.*how programs start/,
    ],
    [
      'is the runner’s own',
      { actions: { id_token_request_url: 'https://evil' } },
      /ACTIONS_ID_TOKEN_REQUEST_URL/,
    ],
    ['is GitHub’s own', { github: { token: 'ghp_evil' } }, /GITHUB_TOKEN/],
    [
      'is the command’s own',
      { secrets_vault: { base_url: 'https://evil' } },
      /SECRETS_VAULT_BASE_URL/,
    ],
    [
      'is not a shell identifier',
      { '1db': { password: 'p' } },
      /"1DB_PASSWORD" is not a variable name/,
    ],
    ['has a NUL in its value', { app: { nul: 'a\0b' } }, /APP_NUL .*NUL/],
  ])(
    'refuses a variable that %s, naming it, printing and appending nothing',
    async (_, secrets, pattern) => {
      const vault = await vaultWith(command, 'refused', {
        // Checked before anything is printed: the other variables' masks are not printed either.
        hostile: HOSTILE,
        ...secrets,
      });
      const file = envFile('EARLIER=kept\n');
      const result = await command.run(['export', '--vault', vault, '--format', 'github'], {
        GITHUB_ENV: file,
      });
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(pattern);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expectNoValueIn(result.stderr);
      for (const value of Object.values(secrets).flatMap((secret) => Object.values(secret))) {
        if (value.length >= 6) expect(result.stderr).not.toContain(value);
      }
      expect(readFileSync(file, 'utf8')).toBe('EARLIER=kept\n');
    },
  );

  it('lets --allow-var open one name that changes how programs start, and no reserved one', async () => {
    const vault = await vaultWith(command, 'allowed', {
      java: { opts: '-Xmx512m' },
      node: { options: '--require /tmp/evil.js' },
    });
    const file = envFile();
    const run = (args: string[]) =>
      command.run(['export', '--vault', vault, '--format', 'github', ...args], {
        GITHUB_ENV: file,
      });
    // JAVA_OPTS allowed, NODE_OPTIONS not: refused, naming the flag that would open it.
    const one = await run(['--allow-var', 'JAVA_OPTS']);
    expect(one.code).toBe(1);
    expect(one.stderr).toMatch(/NODE_OPTIONS.*allow it with --allow-var NODE_OPTIONS/);
    expect(readFileSync(file, 'utf8')).toBe('');

    const both = await run(['--allow-var', 'JAVA_OPTS', '--allow-var', 'NODE_OPTIONS']);
    expect(both.code).toBe(0);
    expect(parseEnvFile(readFileSync(file, 'utf8')).sort()).toEqual([
      ['JAVA_OPTS', '-Xmx512m'],
      ['NODE_OPTIONS', '--require /tmp/evil.js'],
    ]);

    const reserved = await vaultWith(command, 'reserved', { github: { token: 'ghp_evil' } });
    const refused = await command.run(
      ['export', '--vault', reserved, '--format', 'github', '--allow-var', 'GITHUB_TOKEN'],
      { GITHUB_ENV: envFile() },
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/GITHUB_TOKEN/);

    const elsewhere = await command.run(
      ['export', '--vault', vault, '--format', 'json', '--allow-var', 'JAVA_OPTS'],
      {},
    );
    expect(elsewhere.code).toBe(2);
    expect(elsewhere.stderr).toMatch(/--allow-var belongs to --format github/);
  });

  it('names the format in export --help', async () => {
    const result = await command.run(['export', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/--format <format>\s+dotenv, shell, json, github or snapshot/);
    expect(result.stdout).toContain('--format github');
    expect(result.stdout).toContain('GITHUB_ENV');
  });
});

describe('the $GITHUB_ENV text', () => {
  const variables = Object.fromEntries(expectedVariables());

  it('is read back exactly by the runner on Windows, written with its line endings', () => {
    const { text } = formatGithub(variables, { eol: '\r\n' });
    expect(parseEnvFile(text, true)).toEqual(expectedVariables());
  });

  it('draws the delimiter again when a value contains it, anywhere', () => {
    const draws = ['EOF', 'OF\nEV', 'ghadelimiter_second'];
    const { text } = formatGithub(
      { APP: 'x\nEOF\nEVIL=1' },
      { eol: '\n', newDelimiter: () => draws.shift() ?? 'unused' },
    );
    expect(text).toBe('APP<<ghadelimiter_second\nx\nEOF\nEVIL=1\nghadelimiter_second\n');
    expect(parseEnvFile(text)).toEqual([['APP', 'x\nEOF\nEVIL=1']]);
  });

  it('refuses, as @actions/core does, when every delimiter drawn is in the value', () => {
    const attempt = () =>
      formatGithub({ APP_KEY: 'secret EOF secret' }, { newDelimiter: () => 'EOF' });
    expect(attempt).toThrow(CommandError);
    expect(attempt).toThrow(/APP_KEY/);
    expect(attempt).not.toThrow(/secret/);
  });

  it('refuses a lone surrogate, which the file cannot carry unaltered', () => {
    expect(() => formatGithub({ APP_KEY: 'a\uD800b' })).toThrow(/APP_KEY .*surrogate/);
    // A pair is a character like any other.
    expect(parseEnvFile(formatGithub({ APP_KEY: '🔑' }, { eol: '\n' }).text)).toEqual([
      ['APP_KEY', '🔑'],
    ]);
  });

  it('is empty for an empty vault', () => {
    expect(formatGithub({})).toEqual({ masks: '', text: '' });
  });
});
