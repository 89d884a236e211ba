/**
 * What `run --mask` does to a command's output: every secret value of 4 characters or more is
 * replaced by `<redacted>` however the command's writes cut the bytes (inside a value, inside a
 * multi-byte character, across lines), output comes out a line at a time, and every other byte,
 * valid UTF-8 or not, comes out as it went in.
 */
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createMasker, Masker, type MaskerOptions } from '../../src/cli/mask.js';
import { printedForms } from '../../src/core/redaction.js';
import { PEM } from './fixtures/pem.js';

const REDACTED = Buffer.from('<redacted>');

/** Feeds `chunks` to a new masker; what each write returned, then what `end` returned. */
function feed(values: string[], chunks: (string | Uint8Array)[], options: MaskerOptions = {}) {
  const masker = new Masker(values, options);
  const writes = chunks.map((chunk) =>
    masker.write(typeof chunk === 'string' ? Buffer.from(chunk) : chunk),
  );
  const end = masker.end();
  return { writes, end, output: Buffer.concat([...writes, end]) };
}

const text = (chunks: Buffer[]) => chunks.map((chunk) => chunk.toString());

/** What a masker of `values` looks for: each printed form, as bytes, longest first. */
const formsOf = (values: string[]) =>
  printedForms(values)
    .map((form) => Buffer.from(form))
    .sort((a, b) => b.length - a.length);

/**
 * The masking done the obvious way, on the whole text at once: at each byte, the longest printed
 * form of a value that starts there.
 */
function maskedAtOnce(values: string[], input: Buffer): Buffer {
  const masked = formsOf(values);
  const parts: Buffer[] = [];
  let position = 0;
  while (position < input.length) {
    const value = masked.find((bytes) =>
      input.subarray(position, position + bytes.length).equals(bytes),
    );
    if (value === undefined) {
      parts.push(input.subarray(position, position + 1));
      position++;
    } else {
      parts.push(REDACTED);
      position += value.length;
    }
  }
  return Buffer.concat(parts);
}

/** The output between the `<redacted>` marks: where a value could have leaked. */
function betweenMarks(output: Buffer): Buffer[] {
  const pieces: Buffer[] = [];
  let start = 0;
  for (let mark = output.indexOf(REDACTED); mark >= 0; mark = output.indexOf(REDACTED, start)) {
    pieces.push(output.subarray(start, mark));
    start = mark + REDACTED.length;
  }
  pieces.push(output.subarray(start));
  return pieces;
}

// A small alphabet, so that values overlap, contain one another and share prefixes often.
const character = fc.constantFrom('a', 'b', 'c', ' ', '\n', 'é', '€', '🔐', '<');
const valueText = fc
  .array(character, { minLength: 1, maxLength: 7 })
  .map((parts) => parts.join(''));
const scenario = fc
  .record({
    // A value may extend the one before it, so that one value often begins another.
    values: fc
      .array(fc.tuple(valueText, fc.boolean()), { minLength: 1, maxLength: 6 })
      .map((entries) => {
        const values: string[] = [];
        for (const [value, extendsPrevious] of entries) {
          values.push(extendsPrevious ? `${values.at(-1) ?? ''}${value}` : value);
        }
        return values;
      }),
    pieces: fc.array(
      fc.oneof(
        character.map((piece) => Buffer.from(piece)),
        // Not UTF-8: a lone continuation byte, a lead byte without its continuation, 0xff.
        fc.constantFrom(Buffer.of(0x80), Buffer.of(0xc3), Buffer.of(0xff)),
        // A whole value, or the start of one.
        fc.record({ index: fc.nat(), length: fc.nat() }),
      ),
      { maxLength: 40 },
    ),
    cuts: fc.array(fc.nat(), { maxLength: 12 }),
  })
  .map(({ values, pieces, cuts }) => {
    const input = Buffer.concat(
      pieces.map((piece) => {
        if (Buffer.isBuffer(piece)) return piece;
        const value = Buffer.from(values[piece.index % values.length] ?? '');
        return piece.length % 3 === 0 ? value.subarray(0, piece.length % value.length) : value;
      }),
    );
    // Cut anywhere, inside characters too; equal cuts give empty writes.
    const offsets = [0, ...cuts.map((cut) => cut % (input.length + 1)).sort((a, b) => a - b)];
    const chunks = offsets.map((offset, index) => input.subarray(offset, offsets[index + 1]));
    return { values, input, chunks };
  });

describe('run --mask output', () => {
  it('masks as if the whole output had been written at once, however the writes cut it', () => {
    fc.assert(
      fc.property(scenario, ({ values, input, chunks }) => {
        const { output } = feed(values, chunks);
        expect(output.equals(maskedAtOnce(values, input))).toBe(true);
        const forms = formsOf(values);
        for (const piece of betweenMarks(output)) {
          for (const form of forms) expect(piece.includes(form)).toBe(false);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('writes out only whole lines until the output ends', () => {
    fc.assert(
      fc.property(scenario, ({ values, chunks }) => {
        for (const written of feed(values, chunks).writes) {
          if (written.length > 0) expect(written.at(-1)).toBe(0x0a);
        }
      }),
    );
  });

  it('masks the same when a long line is written out in parts', () => {
    fc.assert(
      fc.property(scenario, fc.integer({ min: 1, max: 16 }), ({ values, input, chunks }, max) => {
        const { output } = feed(values, chunks, { maxLineBytes: max });
        expect(output.equals(maskedAtOnce(values, input))).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });

  it('masks a value split across two writes', () => {
    const { writes, end } = feed(['hunter2'], ['ok\npassword: hunt', 'er2, done\n']);
    expect(text(writes)).toEqual(['ok\n', 'password: <redacted>, done\n']);
    expect(end.length).toBe(0);
  });

  it('masks a value that the end of a long line splits', () => {
    const line = 'x'.repeat(70_000);
    const { writes, end } = feed(['secret-value'], [`${line}secret-`, 'value']);
    expect(text(writes)).toEqual([line, '']);
    expect(end.toString()).toBe('<redacted>');
  });

  it('keeps a multi-byte character that writes split, inside a value or not', () => {
    const input = Buffer.from('clé: €🔐x, clé🔐é\n');
    const cut = input.indexOf(Buffer.from('🔐')) + 2;
    const { output } = feed(
      ['🔐é12', 'clé🔐é'],
      [input.subarray(0, 3), input.subarray(3, cut), input.subarray(cut)],
    );
    expect(output.toString()).toBe('clé: €🔐x, <redacted>\n');
  });

  it('leaves values under 4 characters alone, counting an emoji as one character', () => {
    const { output } = feed(['abc', '', 'é€', '🔐🔐', 'ab🔐c'], ['abc é€ 🔐🔐 ab🔐c\n']);
    expect(output.toString()).toBe('abc é€ 🔐🔐 <redacted>\n');
  });

  it('writes nothing before a newline, then the line at its newline', () => {
    const { writes, end } = feed(['hunter2'], ['hello', ' world\nnext', ' line\nrest']);
    expect(text(writes)).toEqual(['', 'hello world\n', 'next line\n']);
    expect(end.toString()).toBe('rest');
  });

  it('writes out a line that never ends once it passes the limit, holding back only what could start a value', () => {
    const { writes } = feed(['token-1234'], ['y'.repeat(40), `${'z'.repeat(30)}token-12`], {
      maxLineBytes: 64,
    });
    expect(text(writes)).toEqual(['', `${'y'.repeat(40)}${'z'.repeat(30)}`]);

    const masker = new Masker(['token-1234']);
    let written = 0;
    for (let index = 0; index < 32; index++)
      written += masker.write(Buffer.alloc(64 * 1024, 'a')).length;
    expect(written).toBeGreaterThanOrEqual(31 * 64 * 1024);
  });

  it('masks a value that holds newlines whole, and each of its lines where the rest does not follow', () => {
    const key = '-----BEGIN KEY-----\nMIIEvQIB\n-----END KEY-----';
    const masked = feed(
      [key],
      ['key:\n-----BEGIN KEY-----\n', 'MIIEvQIB\n', '-----END KEY-----\n'],
    );
    expect(text(masked.writes)).toEqual(['key:\n', '', '<redacted>\n']);

    const other = feed([key], ['-----BEGIN KEY-----\n', 'other\n']);
    expect(text(other.writes)).toEqual(['', '<redacted>\nother\n']);
  });

  it('masks the longest value at each position, so a value that contains another goes whole', () => {
    const values = ['abcd', 'abcdef', 'pass', 'my-pass-word'];
    expect(feed(values, ['abcdef abcdX abcde my-pass-word\n']).output.toString()).toBe(
      '<redacted> <redacted>X <redacted>e <redacted>\n',
    );
    expect(text(feed(values, ['abcd', 'ef\n']).writes)).toEqual(['', '<redacted>\n']);
  });

  it('passes bytes that are not UTF-8 through unchanged', () => {
    const input = Buffer.concat([
      Buffer.of(0xff, 0xfe),
      Buffer.from('hunter2'),
      Buffer.of(0xc3, 0x0a, 0x80),
    ]);
    const { output } = feed(['hunter2'], [input.subarray(0, 5), input.subarray(5)]);
    expect(
      output.equals(Buffer.concat([Buffer.of(0xff, 0xfe), REDACTED, Buffer.of(0xc3, 0x0a, 0x80)])),
    ).toBe(true);
  });

  it('masks a stream piped through it, strings included', async () => {
    const masker = createMasker(['hunter2', 'hunter2']);
    const source = Readable.from([
      Buffer.from('user: me\npass'),
      'word: hun',
      Buffer.from('ter2\nbye'),
    ]);
    const output = await buffer(source.pipe(masker));
    expect(output.toString()).toBe('user: me\npassword: <redacted>\nbye');
  });

  it('refuses a line limit that is not a positive whole number', () => {
    expect(() => new Masker(['hunter2'], { maxLineBytes: 0 })).toThrow(RangeError);
    expect(() => createMasker(['hunter2'], { maxLineBytes: 1.5 })).toThrow(/^maxLineBytes/);
  });
});

/** `input` cut into writes of `size` bytes. */
function cutEvery(input: string, size: number): Buffer[] {
  const bytes = Buffer.from(input);
  const chunks: Buffer[] = [];
  for (let offset = 0; offset < bytes.length; offset += size) {
    chunks.push(bytes.subarray(offset, offset + size));
  }
  return chunks;
}

describe('run --mask output, as programs print a value', () => {
  it('masks a key that a JSON logger prints on one line, its newlines escaped (pino)', () => {
    const entry = { level: 30, time: 1_700_000_000_000, msg: 'loaded the key', key: PEM };
    const { output } = feed([PEM], cutEvery(`${JSON.stringify(entry)}\n`, 50));
    expect(JSON.parse(output.toString())).toEqual({ ...entry, key: '<redacted>' });
  });

  it('masks each line of a key printed line by line behind a prefix', () => {
    const input = PEM.split('\n')
      .map((line) => `[app] ${line}\n`)
      .join('');
    expect(feed([PEM], cutEvery(input, 7)).output.toString()).toBe('[app] <redacted>\n'.repeat(4));
  });

  it('masks a key written with CRLF line ends, as it is and through JSON', () => {
    const crlf = PEM.replaceAll('\n', '\r\n');
    const input = `${crlf}\r\n${JSON.stringify({ key: crlf })}\r\n`;
    expect(feed([PEM], cutEvery(input, 13)).output.toString()).toBe(
      '<redacted>\r\n{"key":"<redacted>"}\r\n',
    );
  });

  it('masks a value holding quotes and backslashes as JSON writes it', () => {
    const password = 'pa"ss\\wo\trd';
    const input = `${JSON.stringify({ password })}\n${JSON.stringify([password, 'x'])}\n`;
    expect(feed([password], cutEvery(input, 5)).output.toString()).toBe(
      '{"password":"<redacted>"}\n["<redacted>","x"]\n',
    );
  });

  it("masks a value as other languages' JSON encoders escape it", () => {
    const value = 'café<&>/x+y=';
    const written = [
      'caf\\u00e9<&>/x+y=', // Python's json.dumps
      'caf\\u00e9<&>\\/x+y=', // PHP's json_encode
      'café\\u003c\\u0026\\u003e/x+y=', // Go's encoding/json
      'café\\u003c\\u0026\\u003e/x+y\\u003d', // Gson
      'caf\\u00E9\\u003C\\u0026\\u003E/x\\u002By=', // .NET's System.Text.Json
    ];
    const input = written.map((form) => `{"value":"${form}"}\n`).join('');
    expect(feed([value], cutEvery(input, 3)).output.toString()).toBe(
      '{"value":"<redacted>"}\n'.repeat(written.length),
    );
  });

  it('masks a key as PHP, Gson and .NET write its slashes, pluses and padding', () => {
    const json = JSON.stringify(PEM).slice(1, -1);
    const input = [
      json.replaceAll('/', '\\/'),
      json.replaceAll('=', '\\u003d'),
      json.replaceAll('+', '\\u002B'),
    ].join('\n');
    expect(feed([PEM], [input]).output.toString()).toBe('<redacted>\n<redacted>\n<redacted>');
  });

  it('never lets through a value that a JSON logger printed, nor one of its lines, however the writes cut them', () => {
    const character = fc.constantFrom(
      'a',
      'b',
      '"',
      '\\',
      '\n',
      '\r',
      '/',
      '<',
      '+',
      'é',
      '🔐',
      ' ',
    );
    fc.assert(
      fc.property(
        fc.array(character, { minLength: 4, maxLength: 12 }).map((parts) => parts.join('')),
        fc.array(fc.nat(), { maxLength: 8 }),
        (value, cuts) => {
          const lines = value.split(/\r\n|\r|\n/);
          const input = Buffer.from(
            [
              JSON.stringify({ level: 30, msg: value }),
              ...lines.map((line) => `[app] ${line}`),
            ].join('\n'),
          );
          const offsets = [0, ...cuts.map((cut) => cut % (input.length + 1)).sort((a, b) => a - b)];
          const { output } = feed(
            [value],
            offsets.map((offset, index) => input.subarray(offset, offsets[index + 1])),
          );
          const long = (text: string) => [...text.trim()].length >= 4;
          const secret = [
            ...(long(value) ? [value, JSON.stringify(value).slice(1, -1)] : []),
            ...lines.filter(long),
          ];
          for (const piece of betweenMarks(output)) {
            for (const text of secret) expect(piece.includes(Buffer.from(text))).toBe(false);
          }
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe('run --mask output, at any length', () => {
  const CHUNK = 64 * 1024;

  /** The steps a masker of `values` takes on `bytes` of `a`, written 64 KiB at a time. */
  function stepsFor(values: string[], bytes: number): number {
    const masker = new Masker(values);
    for (let written = 0; written < bytes; written += CHUNK) {
      masker.write(Buffer.alloc(CHUNK, 'a'));
    }
    masker.end();
    return masker.steps;
  }

  it('takes a few steps a byte, however long a value that the output keeps almost matching', () => {
    // The shape that made a byte cost as many steps as the value is long: `aaaa…ab` against `a`s.
    for (const length of [1024, 16 * 1024, 60 * 1024]) {
      const steps = stepsFor([`${'a'.repeat(length - 1)}b`], 1024 * 1024);
      expect(steps).toBeLessThanOrEqual(4 * 1024 * 1024);
    }
  });

  it('takes a few steps a byte however many values nest in one another', () => {
    const values = Array.from({ length: 200 }, (_, index) => 'a'.repeat(index + 4));
    expect(stepsFor([...values, `${'a'.repeat(300)}b`], 1024 * 1024)).toBeLessThanOrEqual(
      4 * 1024 * 1024,
    );
  });

  it('takes twice the steps for twice the output', () => {
    const values = [`${'a'.repeat(8 * 1024 - 1)}b`, 'aaaa'];
    const once = stepsFor(values, 1024 * 1024);
    const twice = stepsFor(values, 2 * 1024 * 1024);
    expect(twice / once).toBeGreaterThan(1.9);
    expect(twice / once).toBeLessThan(2.1);
  });

  it('masks a value that ends a long run of the character it repeats', () => {
    const value = `${'a'.repeat(4095)}b`;
    const run = 'a'.repeat(100_000);
    const { output } = feed([value], cutEvery(`${run}${value}${run}\n`, 4096));
    expect(output.toString()).toBe(`${run}<redacted>${run}\n`);
  });
});
