/**
 * `inject`'s filters (`{{ vault://… | json }}`): what each writes is read back exactly, for any
 * value, by the reader of its format (JSON.parse, a YAML 1.2 and a YAML 1.1 parser, a real `sh`,
 * a base64 decoder, decodeURIComponent); a value a filter cannot write, an unknown filter or a
 * chain of them fails with exit 1, naming the placeholder or the reference, never a value, and
 * nothing is written.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { beforeEach, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import {
  base64,
  jsonString,
  singleQuotedShellWord,
  TEMPLATE_FILTERS,
  UnfilterableValueError,
  urlComponent,
  yamlDoubleQuoted,
} from '../../src/cli/template-filters.js';
import { SecretsVault } from '../../src/index.js';
import { finished, useCommand, vaultWith } from './harness.js';

const command = useCommand();
const { mock } = command;

let case_ = 0;
/** A fresh path in the scratch folder. */
const scratch = (name: string) => join(command.directory, `${++case_}-${name}`);

/** Writes `text` to a fresh file and returns its path. */
function fileWith(text: string, name = 'template'): string {
  const file = scratch(name);
  writeFileSync(file, text);
  return file;
}

/** A file that a value running a shell command would create. */
const canary = () => join(command.directory, 'pwned');

// Characters and fragments that trip the readers: quotes and escapes, every kind of line break,
// YAML's and JSON's special characters, a BOM, non-characters, controls, shell expansions.
const tricky = fc.constantFrom(
  "'",
  "'\\''",
  '"',
  '\\',
  '\\n',
  '\\u0041',
  '\n',
  '\r',
  '\r\n',
  '\t',
  ' ',
  '\u0085',
  '\u00a0',
  '\u2028',
  '\u2029',
  '\ufeff',
  '\ufffe',
  '\uffff',
  '\u0001',
  '\u001b[2J',
  '\u007f',
  '\u009b',
  '#',
  ': ',
  '- ',
  '? ',
  '&a',
  '*a',
  '!!int',
  '%',
  '%41',
  '+',
  '=',
  '&',
  '{{ vault://vlt_x/s/k | json }}',
  '$',
  '`',
  '$(',
  '${',
  ')',
  '}',
  ';',
  '|',
  '*',
  '~',
  'é',
  '🔐',
  'no',
  'on',
  'null',
  '0x10',
  '1e3',
  '.inf',
);
// YAML 1.1 reads these plain words as booleans, numbers or null; quoted, they stay text.
const yamlWords = fc.constantFrom('no', 'on', 'off', 'y', 'NO', '0x10', '0o17', '1e3', '1_000');
const yamlWordsToo = fc.constantFrom('~', 'null', '', ' ', '.nan', '-.inf', '2001-12-14', '<<');

/** Any code point, controls and NUL included, and the tricky fragments mixed in. */
const wellFormed = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 24 }),
  fc
    .array(fc.oneof(tricky, fc.string({ unit: 'binary', maxLength: 3 })), { maxLength: 16 })
    .map((parts) => parts.join('')),
  yamlWords,
  yamlWordsToo,
);
/** Any UTF-16 string, lone surrogates (which a JSON value can hold) included. */
const anyUtf16 = fc.oneof(
  wellFormed,
  fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)) }),
  fc
    .tuple(wellFormed, fc.integer({ min: 0xd800, max: 0xdfff }), wellFormed)
    .map(([before, surrogate, after]) => `${before}${String.fromCharCode(surrogate)}${after}`),
);

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const isWellFormed = (value: string) => !LONE_SURROGATE.test(value);

/** What a real `sh` prints for each of `words`, as `printf '%s\0' <word>…` gives them. */
function shPrints(words: readonly string[]): string[] {
  const script = fileWith(`printf '%s\\0' ${words.join(' ')}\n`, 'words.sh');
  const output = execFileSync('sh', [script], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    cwd: command.directory,
  });
  // Compared as bytes: the UTF-8 of each value, then the NUL printf put after it.
  const values: string[] = [];
  let start = 0;
  for (let end = output.indexOf(0); end !== -1; end = output.indexOf(0, start)) {
    values.push(output.subarray(start, end).toString('utf8'));
    start = end + 1;
  }
  expect(start).toBe(output.length);
  return values;
}

describe('the filters, for any value', () => {
  it('json: JSON.parse reads the value back, and the literal holds no raw line or paragraph separator', () => {
    fc.assert(
      fc.property(anyUtf16, (value) => {
        const literal = jsonString(value);
        expect(JSON.parse(`{"key": ${literal}}`)).toEqual({ key: value });
        expect(literal).toMatch(/^".*"$/s);
        // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
        expect(literal).not.toMatch(/[\u0000-\u001f\u2028\u2029]/);
      }),
      { numRuns: 2000 },
    );
  });

  it('yaml: a YAML 1.2 and a YAML 1.1 parser read the value back as a string, in block and flow', () => {
    fc.assert(
      fc.property(anyUtf16, (value) => {
        const scalar = yamlDoubleQuoted(value);
        // One line, so that it can go anywhere a scalar can, indented or not.
        expect(scalar).not.toMatch(/[\n\r\u0085\u2028\u2029]/);
        for (const version of ['1.2', '1.1'] as const) {
          const options = { version, strict: true, prettyErrors: false };
          expect(parseYaml(`key: ${scalar}\n`, options)).toEqual({ key: value });
          expect(parseYaml(`list:\n  - ${scalar}\n`, options)).toEqual({ list: [value] });
          expect(parseYaml(`{ key: ${scalar}, other: [${scalar}] }`, options)).toEqual({
            key: value,
            other: [value],
          });
        }
      }),
      { numRuns: 1500 },
    );
  });

  it('yaml: the words YAML 1.1 reads as booleans, numbers or null stay strings', () => {
    for (const word of ['no', 'on', 'Off', 'y', '0x10', '1e3', '~', 'null', '', '.inf', '<<']) {
      expect(parseYaml(`key: ${yamlDoubleQuoted(word)}`, { version: '1.1' })).toEqual({
        key: word,
      });
    }
  });

  it('shell: a real sh reads each word back byte for byte and runs nothing', () => {
    const withoutNul = wellFormed.filter((value) => !value.includes('\0'));
    const withCanary = fc.oneof(
      withoutNul,
      fc.constant(`$(touch ${canary()})`),
      fc.constant(`'; touch ${canary()}; '`),
      fc.constant(`\`touch ${canary()}\``),
    );
    fc.assert(
      fc.property(fc.array(withCanary, { minLength: 1, maxLength: 40 }), (values) => {
        const words = values.map(singleQuotedShellWord);
        expect(shPrints(words)).toEqual(values);
        for (const word of words) expect(word).toMatch(/^'.*'$/s);
      }),
      { numRuns: 60 },
    );
    expect(existsSync(canary())).toBe(false);
    expect(shPrints([singleQuotedShellWord('')])).toEqual(['']);
    expect(singleQuotedShellWord('')).toBe("''");
  });

  it('base64: a decoder gives back the UTF-8 of the value, in the standard alphabet', () => {
    fc.assert(
      fc.property(wellFormed, (value) => {
        const encoded = base64(value);
        expect(encoded).toMatch(/^[A-Za-z0-9+/]*={0,2}$/);
        expect(encoded.length % 4).toBe(0);
        const bytes = Uint8Array.from(atob(encoded), (char) => char.charCodeAt(0));
        expect(new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes)).toBe(
          value,
        );
        expect(Buffer.from(encoded, 'base64').toString('utf8')).toBe(value);
      }),
      { numRuns: 2000 },
    );
  });

  it('url: decodeURIComponent and URLSearchParams give back the value', () => {
    fc.assert(
      fc.property(wellFormed, (value) => {
        const encoded = urlComponent(value);
        expect(encoded).toBe(encodeURIComponent(value));
        expect(encoded).toMatch(/^[A-Za-z0-9\-_.!~*'()%]*$/);
        expect(decodeURIComponent(encoded)).toBe(value);
        const url = new URL(`https://example.test/p/${encoded}?key=${encoded}`);
        expect(url.searchParams.get('key')).toBe(value);
      }),
      { numRuns: 2000 },
    );
  });

  it('shell refuses a NUL, and shell, base64 and url a lone surrogate, naming neither value', () => {
    expect(() => singleQuotedShellWord('before\0after')).toThrow(UnfilterableValueError);
    expect(() => singleQuotedShellWord('before\0after')).toThrow(/NUL/);
    fc.assert(
      fc.property(
        anyUtf16.filter((value) => !isWellFormed(value)),
        (value) => {
          for (const write of [singleQuotedShellWord, base64, urlComponent]) {
            expect(() => write(value)).toThrow(UnfilterableValueError);
            // shell names the NUL first when the value holds both.
            expect(() => write(value)).toThrow(/lone surrogate|NUL/);
          }
          expect(() => base64(value)).toThrow(/lone surrogate/);
        },
      ),
      { numRuns: 300 },
    );
    // A well-formed pair is one character, not two halves.
    expect(urlComponent('🔐')).toBe('%F0%9F%94%90');
  });

  it('has exactly the documented filters, and no inherited name counts as one', () => {
    expect([...TEMPLATE_FILTERS.keys()]).toEqual(['json', 'yaml', 'shell', 'base64', 'url']);
    expect(TEMPLATE_FILTERS.has('constructor')).toBe(false);
  });
});

describe('inject with filters', () => {
  // Values no quoting in a template can survive.
  const hostile: Record<string, string> = {
    quotes: `"double" 'single' \`back\` \\ \\n \\"`,
    lines: 'line one\nline two\r\n\nend\r',
    separators: 'nel\u0085ls\u2028ps\u2029bom\ufeffend',
    controls: '\u0001\u001b[31mred\u007f\u009b\t',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell expansion, as text, is the point.
    shell: "$(touch /tmp/pwned) ${HOME} `id` ; '; rm -rf / #",
    placeholder: '{{ vault://vlt_x/s/k | shell }} {{ vault://vlt_x/s/k }}',
    yes: 'yes',
    no: 'no',
    hex: '0x10',
    exponent: '1e3',
    tilde: '~',
    null: 'null',
    empty: '',
    spaces: '  padded  ',
    yaml: '- item\n? key\n: value # comment\n&anchor *alias !!str',
    url: 'a b+c&d=e?f#g/h%20i',
    unicode: 'é ✓ 🔑 \u00a0',
  };
  const keys = Object.keys(hostile);
  let vaultId: string;

  beforeEach(async () => {
    vaultId = await vaultWith(command, 'hostile', { hostile }, { reset: true });
  });

  /** The placeholder of `key` of the hostile secret, with `filter`. */
  const placeholder = (key: string, filter: string) =>
    `{{ vault://${vaultId}/hostile/${key} | ${filter} }}`;

  /** Renders `template` to a fresh file, checking that inject succeeds quietly. */
  async function rendered(template: string): Promise<string> {
    const output = scratch('rendered');
    const result = await command.run(['inject', '-i', fileWith(template), '-o', output]);
    expect(result).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(statSync(output).mode & 0o777).toBe(0o600);
    return readFileSync(output, 'utf8');
  }

  it('json: the file parses back to every value', async () => {
    const text = await rendered(
      `{\n${keys.map((key) => `  ${JSON.stringify(key)}: ${placeholder(key, 'json')}`).join(',\n')}\n}\n`,
    );
    expect(JSON.parse(text)).toEqual(hostile);
  });

  it('yaml: the file parses back to every value, as strings, with YAML 1.2 and 1.1', async () => {
    const text = await rendered(
      `# rendered\nvalues:\n${keys.map((key) => `  "${key}": ${placeholder(key, 'yaml')}`).join('\n')}\nlist: [${placeholder('no', 'yaml')},${placeholder('hex', 'yaml')}]\n`,
    );
    for (const version of ['1.2', '1.1'] as const) {
      expect(parseYaml(text, { version, strict: true })).toEqual({
        values: hostile,
        list: ['no', '0x10'],
      });
    }
  });

  it('shell: sh running the file prints every value byte for byte, and runs none', async () => {
    const text = await rendered(
      `#!/bin/sh\nprintf '%s\\0' ${keys.map((key) => placeholder(key, 'shell')).join(' ')}\n`,
    );
    const output = execFileSync('sh', ['-c', text], {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: command.directory },
      cwd: command.directory,
    });
    expect(output.toString('utf8').split('\0')).toEqual([...Object.values(hostile), '']);
    expect(existsSync('/tmp/pwned')).toBe(false);
  });

  it('base64 and url: each decodes back to the value', async () => {
    const text = await rendered(
      `${keys.map((key) => `${key}.b64=${placeholder(key, 'base64')}`).join('\n')}\nurl=https://example.test/?${keys.map((key) => `${key}=${placeholder(key, 'url')}`).join('&')}\n`,
    );
    const lines = text.split('\n');
    expect(lines).toHaveLength(keys.length + 2);
    keys.forEach((key, index) => {
      const [name, encoded] = (lines[index] as string).split('=', 2) as [string, string];
      expect(name).toBe(`${key}.b64`);
      expect(Buffer.from(encoded, 'base64').toString('utf8')).toBe(hostile[key]);
    });
    const url = new URL((lines[keys.length] as string).slice('url='.length));
    expect(Object.fromEntries(url.searchParams)).toEqual(hostile);
  });

  it('puts one reference in with and without filters, whatever the spacing, reading the vault once', async () => {
    const reads = mock.faults.inject(
      { path: `/v1/vaults/${vaultId}/secrets/values` },
      { kind: 'delay', ms: 0 },
    );
    const reference = `vault://${vaultId}/hostile/quotes`;
    const text = await rendered(
      `raw={{${reference}}}\njson={{${reference}|json}}\nyaml={{ ${reference}\t|\tyaml\t}}\nshell={{ ${reference} |shell}}\nleft: {{ name | json }} {{ vault: | json }} {{ vault://x/y/z | json }\n`,
    );
    expect(text).toBe(
      [
        `raw=${hostile.quotes}`,
        `json=${JSON.stringify(hostile.quotes)}`,
        `yaml=${yamlDoubleQuoted(hostile.quotes as string)}`,
        `shell=${singleQuotedShellWord(hostile.quotes as string)}`,
        'left: {{ name | json }} {{ vault: | json }} {{ vault://x/y/z | json }',
        '',
      ].join('\n'),
    );
    expect(reads.hits).toBe(1);
  });

  it('writes a value that holds placeholders as text, never resolving it', async () => {
    const text = await rendered(`${placeholder('placeholder', 'json')}\n`);
    expect(JSON.parse(text)).toBe(hostile.placeholder);
  });

  it.each([
    ['toml', 'unknown filter "toml" in {{ vault://VAULT/hostile/quotes | toml }}'],
    [
      'constructor',
      'unknown filter "constructor" in {{ vault://VAULT/hostile/quotes | constructor }}',
    ],
    ['JSON', 'unknown filter "JSON" in'],
    ['', 'a filter is missing after | in {{ vault://VAULT/hostile/quotes |  }}'],
    ['json | yaml', 'filters cannot be chained: {{ vault://VAULT/hostile/quotes | json | yaml }}'],
    ['json |', 'a filter is missing after | in'],
  ])(
    'fails with exit 1 on the filter %j, naming it, before contacting the service, writing no file',
    async (filter, message) => {
      const good = `{{ vault://${vaultId}/hostile/yes | json }}`;
      const fresh = scratch('fresh.conf');
      const existing = scratch('existing.conf');
      writeFileSync(existing, 'the previous good config\n');
      chmodSync(existing, 0o640);
      const before = statSync(existing);
      const args = [
        'inject',
        '-i',
        fileWith(`good=${good}\n`),
        '-o',
        existing,
        '-i',
        fileWith(`ok=${good}\nbad=${placeholder('quotes', filter)}\n`),
        '-o',
        fresh,
      ];
      for (const env of [
        {},
        { SECRETS_VAULT_BASE_URL: `http://127.0.0.1:${command.closedPort}` },
      ]) {
        const result = await command.run(args, env);
        expect(result.code).toBe(1);
        expect(result.stdout).toBe('');
        expect(result.stderr).toMatch(/^secrets-vault: .*\n$/);
        expect(result.stderr).toContain(message.replace('VAULT', vaultId));
        expect(result.stderr).not.toContain(hostile.quotes);
      }
      expect(existsSync(fresh)).toBe(false);
      expect(readFileSync(existing, 'utf8')).toBe('the previous good config\n');
      expect(statSync(existing)).toMatchObject({ ino: before.ino, mode: before.mode });
    },
  );

  it('says how to write a | inside a reference when the filter looks like the rest of one', async () => {
    const result = await command.run([
      'inject',
      '-i',
      fileWith(`{{ vault://${vaultId}/a|b/key }}\n`),
    ]);
    expect(result).toMatchObject({ code: 1, stdout: '' });
    expect(result.stderr).toContain(`unknown filter "b/key" in {{ vault://${vaultId}/a|b/key }}`);
    expect(result.stderr).toContain('%7C');
  });

  it('still reports a malformed or unknown reference that has a filter, naming the reference', async () => {
    for (const reference of [`vault://${vaultId}/hostile`, `vault://${vaultId}/hostile/nokey`]) {
      const output = scratch('never.conf');
      const result = await command.run([
        'inject',
        '-i',
        fileWith(`x={{ ${reference} | json }}\n`),
        '-o',
        output,
      ]);
      expect(result).toMatchObject({ code: 1, stdout: '' });
      expect(result.stderr).toContain(`Cannot resolve ${reference}: `);
      expect(existsSync(output)).toBe(false);
    }
  });

  it('refuses a value its filter cannot write, naming the reference and the filter, never the value, writing nothing', async () => {
    const refused = await vaultWith(command, 'refused', {
      odd: { nul: 'secret-before\0secret-after', lone: 'secret-\ud800-half' },
    });
    for (const [key, filter, why] of [
      ['nul', 'shell', 'it holds a NUL'],
      ['lone', 'shell', 'lone surrogate'],
      ['lone', 'base64', 'lone surrogate'],
      ['lone', 'url', 'lone surrogate'],
    ] as const) {
      const reference = `vault://${refused}/odd/${key}`;
      const first = scratch('first.conf');
      const second = scratch('second.conf');
      const result = await command.run([
        'inject',
        '-i',
        fileWith(`fine={{ vault://${vaultId}/hostile/yes }}\n`),
        '-o',
        first,
        '-i',
        fileWith(`bad={{ ${reference} | ${filter} }}\n`),
        '-o',
        second,
      ]);
      expect(result).toMatchObject({ code: 1, stdout: '' });
      expect(result.stderr).toContain(`Cannot resolve ${reference}: | ${filter} cannot write`);
      expect(result.stderr).toContain(why);
      expect(result.stderr).not.toContain('secret-');
      expect(result.stderr.split('\n')).toHaveLength(2);
      expect([existsSync(first), existsSync(second)]).toEqual([false, false]);
    }
    // json and yaml write a lone surrogate as an escape, and read it back.
    const text = await rendered(
      `json: {{ vault://${refused}/odd/lone | json }}\nyaml: {{ vault://${refused}/odd/lone | yaml }}\n`,
    );
    expect(text).toBe('json: "secret-\\ud800-half"\nyaml: "secret-\\uD800-half"\n');
    expect(parseYaml(text)).toEqual({ json: 'secret-\ud800-half', yaml: 'secret-\ud800-half' });
  });

  it('lists the filters in its help', async () => {
    const help = await command.run(['inject', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('{{ vault://<vaultId>/<secret>/<key> | json }}');
    for (const filter of TEMPLATE_FILTERS.keys()) {
      expect(help.stdout).toMatch(new RegExp(`\\n  ${filter} +\\S`));
    }
  });

  it('with --watch, a rotated value its filter cannot write changes nothing, said once, until it can', async () => {
    const operator = new SecretsVault({
      baseUrl: command.served.url,
      token: mock.principals.owner.token,
    });
    const secret = await operator.secrets.create(vaultId, {
      name: 'rotating',
      value: { word: 'one' },
    });
    const rotate = (word: string) => operator.secrets.update(secret.id, { value: { word } });
    const reference = `vault://${vaultId}/rotating/word`;
    const output = scratch('watched.sh');
    const sidecar = command.start([
      'inject',
      '-i',
      fileWith(`word={{ ${reference} | shell }}\n`),
      '-o',
      output,
      '--watch',
      '--watch-interval',
      '5s',
    ]);
    let stderr = '';
    sidecar.stderr?.on('data', (chunk) => {
      stderr += chunk;
    });
    const result = finished(sidecar);
    const contents = () => (existsSync(output) ? readFileSync(output, 'utf8') : undefined);
    await until(() => contents() === "word='one'\n", 10_000);
    await rotate('secret-before\0secret-after');
    await until(() => stderr.includes('cannot render the templates'), 15_000);
    expect(contents()).toBe("word='one'\n");
    await rotate("it's two");
    await until(() => contents() === "word='it'\\''s two'\n", 15_000);
    sidecar.kill('SIGINT');
    expect((await result).code).toBe(0);
    const lines = stderr.split('\n').filter((line) => line.startsWith('secrets-vault: '));
    expect(lines[0]).toContain(
      `cannot render the templates: Cannot resolve ${reference}: | shell cannot write its value: it holds a NUL`,
    );
    expect(lines.filter((line) => line.includes('cannot render'))).toHaveLength(1);
    expect(lines).toContain('secrets-vault: the templates can be rendered again');
    expect(stderr).not.toContain('secret-');
  }, 60_000);
});

async function until(check: () => boolean, ms: number): Promise<void> {
  const deadline = performance.now() + ms;
  while (!check()) {
    if (performance.now() > deadline) throw new Error(`timed out after ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
