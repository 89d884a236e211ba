/**
 * What `export` writes is read back byte for byte by every reader that loads it, for any value
 * a vault editor can write, and no value makes a reader do anything but assign it: Node's
 * `util.parseEnv`, the `dotenv` package, and real `bash` sourcing the file (`set -a; . ./.env`)
 * or evaluating the `shell` format (`eval "$(…)"`). A value one format cannot carry is refused,
 * naming its variable, never its value.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseEnv } from 'node:util';
import dotenv from 'dotenv';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { EnvFormatError, formatDotenv, formatShell } from '../../src/cli/dotenv.js';

const directory = mkdtempSync(join(tmpdir(), 'secrets-vault-dotenv-'));
const CANARY = join(directory, 'pwned');
afterAll(() => rmSync(directory, { recursive: true, force: true }));

// Characters and fragments that trip dotenv writers and shells.
const tricky = fc.constantFrom(
  "'",
  '"',
  '`',
  '$',
  '$(',
  '${',
  ')',
  '}',
  '#',
  '=',
  '\\',
  '\\n',
  '\n',
  '\r\n',
  ' ',
  '\t',
  ';',
  '&',
  '|',
  '!',
  '*',
  '~',
  'é',
  '🔐',
  'a',
  `touch ${CANARY}`,
  '\u001b[2J',
);
const value = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 12 }),
  fc.array(tricky, { maxLength: 16 }).map((parts) => parts.join('')),
);
// `V_` keeps generated names clear of the shell's own variables (PATH, IFS, …).
const variables = fc.dictionary(fc.stringMatching(/^V_[A-Z0-9_]{1,6}$/), value, { maxKeys: 6 });

/** What bash exports after running `script` on the file: the `V_` variables, as given. */
function bashReads(file: string, script: string): Record<string, string> {
  const output = execFileSync('bash', ['--noprofile', '--norc', '-c', `${script}; env -0`], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', FILE: file },
    encoding: 'utf8',
    cwd: directory,
  });
  return Object.fromEntries(
    output
      .split('\0')
      .filter((entry) => entry.startsWith('V_'))
      .map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]),
  );
}

function expectRefusalWithoutValues(error: unknown, given: Record<string, string>): void {
  expect(error).toBeInstanceOf(EnvFormatError);
  for (const secret of Object.values(given)) {
    if (secret.length >= 4) expect((error as Error).message).not.toContain(secret);
  }
}

describe('formatDotenv', () => {
  it('is read back exactly by util.parseEnv, the dotenv package and bash, or refused', () => {
    const file = join(directory, 'property.env');
    fc.assert(
      fc.property(variables, (given) => {
        let text: string;
        try {
          text = formatDotenv(given);
        } catch (error) {
          expectRefusalWithoutValues(error, given);
          return;
        }
        writeFileSync(file, text);
        expect(parseEnv(text)).toEqual(given);
        expect(dotenv.parse(text)).toEqual(given);
        expect(bashReads(file, 'set -a; . "$FILE"')).toEqual(given);
        expect(existsSync(CANARY)).toBe(false);
      }),
      { numRuns: 300 },
    );
    // Hundreds of bash processes: seconds on a loaded machine, not a sign of a fault.
  }, 60_000);

  it('writes line breaks, quotes, $, backslashes and command substitutions literally', () => {
    const given = {
      V_PEM: '-----BEGIN KEY-----\nMIIB\n-----END KEY-----',
      V_QUOTED: `"double" and \`back\``,
      V_DOLLAR: `$HOME and $(touch ${CANARY}) and \`touch ${CANARY}\` and \${PATH}`,
      V_BACKSLASH: 'C:\\path\\n\\ end',
      V_APOSTROPHE: "it's fine",
      V_EMPTY: '',
    };
    const text = formatDotenv(given);
    const file = join(directory, 'known.env');
    writeFileSync(file, text);
    expect(parseEnv(text)).toEqual(given);
    expect(dotenv.parse(text)).toEqual(given);
    expect(bashReads(file, 'set -a; . "$FILE"')).toEqual(given);
    expect(existsSync(CANARY)).toBe(false);
  });

  it.each([
    ["a ' with a $", "it's $HOME"],
    ["a ' with a backtick", "it's `id`"],
    ["a ' with a backslash", "it's \\n"],
    ['a \' with a "', `it's "x"`],
    ['a carriage return, which the readers alter', 'line\r\nbreak'],
    ['a NUL', 'a\0b'],
    ['a \\ at its end, which dotenv reads as escaping the quote', 'C:\\dir\\'],
  ])('refuses a value with %s, naming the variable only', (_case, secret) => {
    expect(() => formatDotenv({ ODD: secret })).toThrow(
      /^the value of ODD cannot be written in this format: .*use --format json$/,
    );
  });

  it('refuses a value ending in \\ rather than let dotenv run it into the next line', () => {
    // Found by the property above: dotenv read V_A as the rest of the file.
    expect(() => formatDotenv({ V_A: '\\', V_0: '\n' })).toThrow(/the value of V_A/);
  });

  it('refuses a name a shell would run as a command', () => {
    expect(() => formatDotenv({ '1PASSWORD_KEY': 'x' })).toThrow(/not a variable name/);
    expect(() => formatShell({ '1PASSWORD_KEY': 'x' })).toThrow(/not a variable name/);
  });
});

describe('formatShell', () => {
  it('is read back exactly by eval and by ., for any value without a NUL', () => {
    const file = join(directory, 'property.sh');
    fc.assert(
      fc.property(variables, (given) => {
        let text: string;
        try {
          text = formatShell(given);
        } catch (error) {
          expectRefusalWithoutValues(error, given);
          expect(Object.values(given).some((item) => item.includes('\0'))).toBe(true);
          return;
        }
        writeFileSync(file, text);
        expect(bashReads(file, 'eval "$(cat "$FILE")"')).toEqual(given);
        expect(bashReads(file, '. "$FILE"')).toEqual(given);
        expect(existsSync(CANARY)).toBe(false);
      }),
      { numRuns: 300 },
    );
    // Hundreds of bash processes: seconds on a loaded machine, not a sign of a fault.
  }, 60_000);
});
