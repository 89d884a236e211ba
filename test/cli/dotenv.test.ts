/**
 * Dotenv output that Node's own reader reads back exactly, for any value it can hold.
 */
import { parseEnv } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DotenvError, formatDotenv } from '../../src/cli/dotenv.js';

// Characters that trip dotenv writers: quotes, `$`, `#`, `=`, backslashes, line breaks, spaces.
const tricky = fc.constantFrom(
  "'",
  '"',
  '`',
  '$',
  '#',
  '=',
  '\\',
  '\n',
  '\r\n',
  ' ',
  '\t',
  'n',
  'é',
  '🔐',
  'a',
);
const value = fc.oneof(
  fc.string(),
  fc.array(tricky, { maxLength: 24 }).map((parts) => parts.join('')),
);

describe('formatDotenv', () => {
  it('round-trips every value through util.parseEnv, or refuses it naming only the variable', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.stringMatching(/^[A-Z_][A-Z0-9_]{0,8}$/), value),
        (variables) => {
          let text: string;
          try {
            text = formatDotenv(variables);
          } catch (error) {
            expect(error).toBeInstanceOf(DotenvError);
            for (const secret of Object.values(variables)) {
              if (secret.length >= 4) expect((error as Error).message).not.toContain(secret);
            }
            return;
          }
          expect(parseEnv(text)).toEqual(variables);
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it('writes newlines, quotes and $ so that they come back unchanged', () => {
    const variables = {
      PEM: '-----BEGIN KEY-----\nMIIB\n-----END KEY-----',
      QUOTES: `it's "quoted"`,
      DOLLAR: '$HOME and $PATH/$$',
      BOTH: `it's \`ticked\``,
      EMPTY: '',
    };
    expect(parseEnv(formatDotenv(variables))).toEqual(variables);
  });

  it.each([
    ['every kind of quote', `'"\``],
    ['a carriage return, which the reader drops', 'line\r\nbreak'],
  ])('refuses a value with %s, naming the variable only', (_case, value) => {
    expect(() => formatDotenv({ ODD: value })).toThrow(/^ODD cannot be written as dotenv/);
  });
});
