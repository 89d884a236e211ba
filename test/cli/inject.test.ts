/**
 * `secrets-vault inject` as a job runs it before starting a program that reads its secrets from
 * a file: a template rendered with each `{{ vault://… }}` placeholder replaced by its value,
 * verbatim and once, written atomically with mode 0600 or to stdout; an unknown reference fails
 * naming it, and writes nothing.
 */
import { chmodSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { SecretsVault } from '../../src/index.js';
import { finished, launch, useCommand } from './harness.js';

const command = useCommand();
const { mock } = command;

const valuesPath = (vaultId: string) => `/v1/vaults/${vaultId}/secrets/values`;

let operator: SecretsVault;
let app: string;
let payments: string;
let case_ = 0;

/** A fresh path in the scratch folder. */
const scratch = (name: string) => join(command.directory, `${++case_}-${name}`);

/** Writes `text` to a fresh template file and returns its path. */
function template(text: string | Uint8Array): string {
  const file = scratch('template');
  writeFileSync(file, text);
  return file;
}

beforeEach(async () => {
  mock.reset();
  mock.faults.clear();
  operator = new SecretsVault({ baseUrl: command.served.url, token: mock.principals.owner.token });
  app = (await operator.vaults.create({ name: 'app' })).id;
  payments = (await operator.vaults.create({ name: 'payments' })).id;
  await operator.secrets.create(app, {
    name: 'database',
    value: { url: 'postgres://db.internal/app', password: 'hunter2-db' },
  });
  await operator.secrets.create(app, { name: 'my db', value: { 'user name': 'app-user' } });
  await operator.secrets.create(payments, { name: 'stripe', value: { api_key: 'sk_live_1' } });
});

describe('inject', () => {
  it('replaces every placeholder from two vaults, whatever the spacing, reading each vault once', async () => {
    const appReads = mock.faults.inject({ path: valuesPath(app) }, { kind: 'delay', ms: 0 });
    const paymentsReads = mock.faults.inject(
      { path: valuesPath(payments) },
      { kind: 'delay', ms: 0 },
    );
    const file = template(
      [
        'database:',
        `  url: {{ vault://${app}/database/url }}`,
        `  password: "{{vault://${app}/database/password}}"`,
        `  user: {{   vault://${app}/my%20db/user%20name\t}}`,
        `stripe_key={{ vault://${payments}/stripe/api_key }} again={{vault://${payments}/stripe/api_key }}`,
        'left as it is: {{ name }} {{ vault: }} vault://x/y/z {{vault://unclosed/a/b }',
        '',
      ].join('\n'),
    );
    const result = await command.run(['inject', '-i', file]);
    expect(result).toEqual({
      code: 0,
      stderr: '',
      stdout: [
        'database:',
        '  url: postgres://db.internal/app',
        '  password: "hunter2-db"',
        '  user: app-user',
        'stripe_key=sk_live_1 again=sk_live_1',
        'left as it is: {{ name }} {{ vault: }} vault://x/y/z {{vault://unclosed/a/b }',
        '',
      ].join('\n'),
    });
    expect([appReads.hits, paymentsReads.hits]).toEqual([1, 1]);
  });

  it('writes -o with mode 0600, leaving stdout empty', async () => {
    const output = scratch('app.conf');
    const result = await command.run([
      'inject',
      '--in-file',
      template(`password={{ vault://${app}/database/password }}\n`),
      '--out-file',
      output,
    ]);
    expect(result).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(readFileSync(output, 'utf8')).toBe('password=hunter2-db\n');
    expect(statSync(output).mode & 0o777).toBe(0o600);
  });

  it('replaces an existing file atomically: a new file renamed over it, narrowed to 0600, no leftovers', async () => {
    const output = scratch('app.conf');
    writeFileSync(output, 'old contents\n');
    chmodSync(output, 0o644);
    const before = statSync(output).ino;
    const result = await command.run([
      'inject',
      '-i',
      template(`key={{ vault://${payments}/stripe/api_key }}\n`),
      '-o',
      output,
    ]);
    expect(result).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(readFileSync(output, 'utf8')).toBe('key=sk_live_1\n');
    // A write in place would keep the inode: a rename gives the new file's.
    expect(statSync(output).ino).not.toBe(before);
    expect(statSync(output).mode & 0o777).toBe(0o600);
    expect(readdirSync(command.directory).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it.each([
    ['a secret', (vault: string) => `vault://${vault}/nothing-here/url`, 'no live secret'],
    ['a key', (vault: string) => `vault://${vault}/database/nokey`, 'no such key'],
    ['a vault', () => 'vault://vlt_doesnotexist/database/url', 'no vault with that id'],
    ['a well-formed reference', (vault: string) => `vault://${vault}/database`, 'a reference is'],
  ])(
    'fails on an unknown or malformed reference (%s), naming it and writing nothing',
    async (_, reference, problem) => {
      const unknown = reference(app);
      const file = template(
        `url={{ vault://${app}/database/url }}\nbad={{ ${unknown} }}\npassword={{ vault://${app}/database/password }}\n`,
      );
      const fresh = scratch('fresh.conf');
      const existing = scratch('existing.conf');
      writeFileSync(existing, 'the previous good config\n');
      chmodSync(existing, 0o640);
      const before = statSync(existing);

      const toStdout = await command.run(['inject', '-i', file]);
      const toFresh = await command.run(['inject', '-i', file, '-o', fresh]);
      const toExisting = await command.run(['inject', '-i', file, '-o', existing]);
      for (const result of [toStdout, toFresh, toExisting]) {
        expect(result.code).toBe(1);
        expect(result.stdout).toBe('');
        expect(result.stderr).toContain(`Cannot resolve ${unknown}: `);
        expect(result.stderr).toContain(problem);
        expect(result.stderr.split('\n')).toHaveLength(2);
        expect(result.stderr).not.toMatch(/postgres:|hunter2/);
      }
      expect(existsSync(fresh)).toBe(false);
      expect(readFileSync(existing, 'utf8')).toBe('the previous good config\n');
      expect(statSync(existing)).toMatchObject({ ino: before.ino, mode: before.mode });
      expect(readdirSync(command.directory).filter((name) => name.endsWith('.tmp'))).toEqual([]);
    },
  );

  it('puts hostile values in verbatim and once, only where the template placed them', async () => {
    const hostile: Record<string, string> = {
      // A placeholder that would resolve, a reference, and replacement patterns: all stay text.
      placeholder: `{{ vault://${payments}/stripe/api_key }}`,
      reference: `vault://${payments}/stripe/api_key`,
      patterns: "$& $1 $$ $` $'",
      lines: 'line one\nline two\r\n\nend',
      quotes: `"double" 'single' \`back\` \\ \\n`,
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell expansion, as text, is the point.
      shell: '$(touch /tmp/pwned) ${HOME} ; rm -rf /',
      nul: 'before\0after',
      large: `${'x'.repeat(64 * 1024 - 3)}end`,
    };
    await operator.secrets.create(payments, { name: 'hostile', value: hostile });
    const keys = Object.keys(hostile);
    // The template also uses the reference the hostile values hold: a second pass would show.
    const file = template(
      `${keys.map((key) => `${key}=[{{ vault://${payments}/hostile/${key} }}]`).join('\n')}\nkey={{ vault://${payments}/stripe/api_key }}\n`,
    );
    const output = scratch('hostile.conf');
    const [toStdout, toFile] = [
      await command.run(['inject', '-i', file]),
      await command.run(['inject', '-i', file, '-o', output]),
    ];
    const expected = `${keys.map((key) => `${key}=[${hostile[key]}]`).join('\n')}\nkey=sk_live_1\n`;
    expect(toStdout).toEqual({ code: 0, stdout: expected, stderr: '' });
    expect(toFile).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(readFileSync(output, 'utf8')).toBe(expected);
    // Exactly the template's lines plus the values' own.
    expect(toStdout.stdout.split('\n')).toHaveLength(keys.length + 2 + 3);
    expect(toStdout.stdout.split('sk_live_1')).toHaveLength(2);
  });

  it('renders a template without placeholders without contacting the service', async () => {
    const text = 'plain: {{ not a reference }}\nunicode: é ✓ 🔑\n';
    const result = await command.run(['inject', '-i', template(`\uFEFF${text}`)], {
      SECRETS_VAULT_BASE_URL: `http://127.0.0.1:${command.closedPort}`,
    });
    expect(result).toEqual({ code: 0, stdout: `\uFEFF${text}`, stderr: '' });
  });

  it('reads the template from stdin with -i -', async () => {
    const child = launch(command.cli, ['inject', '-i', '-'], {
      env: {
        PATH: process.env.PATH,
        SECRETS_VAULT_BASE_URL: command.served.url,
        SECRETS_VAULT_TOKEN: mock.principals.adminKey.token,
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    child.stdin?.end(`key={{ vault://${payments}/stripe/api_key }}\n`);
    expect(await finished(child)).toEqual({ code: 0, stdout: 'key=sk_live_1\n', stderr: '' });
  });

  it('refuses a template over 1 MiB, one that is not UTF-8, and one it cannot read', async () => {
    const output = scratch('never.conf');
    const large = await command.run([
      'inject',
      '-i',
      template('#'.repeat(1024 * 1024 + 1)),
      '-o',
      output,
    ]);
    expect(large).toMatchObject({ code: 1, stdout: '' });
    expect(large.stderr).toMatch(/^secrets-vault: the template .* is larger than 1 MiB\n$/);

    const latin1 = await command.run([
      'inject',
      '-i',
      template(Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a])),
      '-o',
      output,
    ]);
    expect(latin1).toMatchObject({ code: 1, stdout: '' });
    expect(latin1.stderr).toMatch(/^secrets-vault: the template .* is not UTF-8 text\n$/);

    const missing = join(command.directory, 'no-such-template');
    const absent = await command.run(['inject', '-i', missing, '-o', output]);
    expect(absent).toEqual({
      code: 1,
      stdout: '',
      stderr: `secrets-vault: cannot read the template ${missing}: ENOENT\n`,
    });
    expect(existsSync(output)).toBe(false);
  });

  it('is a usage error (exit 2) without a template', async () => {
    for (const args of [
      ['inject'],
      ['inject', '-i', ''],
      ['inject', '-i', template('x'), '-o', ''],
    ]) {
      const result = await command.run(args);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(/^secrets-vault: .* \(see secrets-vault inject --help\)\n$/);
    }
  });

  it('writes several templates, each to the file after it, reading each vault once for all', async () => {
    const appReads = mock.faults.inject({ path: valuesPath(app) }, { kind: 'delay', ms: 0 });
    const first = scratch('first.conf');
    const second = scratch('second.conf');
    const result = await command.run([
      'inject',
      '-i',
      template(`url={{ vault://${app}/database/url }}\n`),
      '-o',
      first,
      '-i',
      template(`password={{ vault://${app}/database/password }}\n`),
      '-o',
      second,
    ]);
    expect(result).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(readFileSync(first, 'utf8')).toBe('url=postgres://db.internal/app\n');
    expect(readFileSync(second, 'utf8')).toBe('password=hunter2-db\n');
    expect(statSync(second).mode & 0o777).toBe(0o600);
    expect(appReads.hits).toBe(1);
  });

  it('writes none of several files when a reference of any template fails', async () => {
    const first = scratch('first.conf');
    const second = scratch('second.conf');
    const result = await command.run([
      'inject',
      '-i',
      template(`url={{ vault://${app}/database/url }}\n`),
      '-o',
      first,
      '-i',
      template(`missing={{ vault://${app}/database/nokey }}\n`),
      '-o',
      second,
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`Cannot resolve vault://${app}/database/nokey: `);
    expect([existsSync(first), existsSync(second)]).toEqual([false, false]);
  });

  it('explains itself in its help, and the top-level help lists it', async () => {
    const help = await command.run(['inject', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(
      /^Usage: secrets-vault inject -i <template> \[-o <file>\] \[--wait D\]\n/,
    );
    expect(help.stdout).toContain('{{ vault://<vaultId>/<secret>/<key> }}');
    expect(help.stdout).toContain('-i, --in-file <template>');
    expect(help.stdout).toContain('-o, --out-file <file>');
    expect(help.stdout).toContain('mode\n                            0600');

    const overview = await command.run(['--help']);
    expect(overview.stdout).toContain('\n  inject -i <template> [-o <file>] [--wait D]\n');
  });
});
