/**
 * A server that echoes the token or a secret value in its own escaping (PHP's `\/`, Python's
 * `\u00f6`, percent-encoding, HTML entities), in its message or in a response header, still
 * leaks nothing into the error: not its message, String(error), JSON.stringify(error) nor
 * util.inspect(error).
 */
import { inspect } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type APIError, RateLimitError, SecretsVaultError } from '../../src/index.js';
import { createClient, fail, route } from '../helpers.js';
import { rejectionOf } from '../rejection.js';

// A slash, a space, Latin-1, HTML's special characters and a character outside the BMP: every
// encoding below writes it differently.
const VALUE = 's3cr/t wört&<"q\'>🔐';
const TOKEN = 'sv/tok+en=ab&cd<ef>"gh\'';

/** VALUE as servers in the wild echo it. */
const VALUE_ENCODINGS: ReadonlyArray<readonly [string, string]> = [
  ["by PHP's json_encode", 's3cr\\/t w\\u00f6rt&<\\"q\'>\\ud83d\\udd10'],
  ['by json_encode with JSON_UNESCAPED_UNICODE', 's3cr\\/t wört&<\\"q\'>🔐'],
  ["by Python's json.dumps", 's3cr/t w\\u00f6rt&<\\"q\'>\\ud83d\\udd10'],
  ['as JSON with upper-case hex', 's3cr/t w\\u00F6rt&<\\"q\'>\\uD83D\\uDD10'],
  ["by Go's encoding/json", 's3cr/t wört\\u0026\\u003c\\"q\'\\u003e🔐'],
  ['by encodeURIComponent', "s3cr%2Ft%20w%C3%B6rt%26%3C%22q'%3E%F0%9F%94%90"],
  ['by encodeURIComponent with + for space', "s3cr%2Ft+w%C3%B6rt%26%3C%22q'%3E%F0%9F%94%90"],
  ['as a form field (URLSearchParams)', 's3cr%2Ft+w%C3%B6rt%26%3C%22q%27%3E%F0%9F%94%90'],
  ["by Python's quote", 's3cr/t%20w%C3%B6rt%26%3C%22q%27%3E%F0%9F%94%90'],
  ['percent-encoded with lower-case hex', 's3cr%2ft%20w%c3%b6rt%26%3c%22q%27%3e%f0%9f%94%90'],
  ["by Python's html.escape", 's3cr/t wört&amp;&lt;&quot;q&#x27;&gt;🔐'],
  ['as HTML with &#39;', 's3cr/t wört&amp;&lt;&quot;q&#39;&gt;🔐'],
  ["by Go's html.EscapeString", 's3cr/t wört&amp;&lt;&#34;q&#39;&gt;🔐'],
  ['as decimal character references', 's3cr/t w&#246;rt&#38;&#60;&#34;q&#39;&#62;&#128272;'],
  ['as hex character references', 's3cr/t w&#xf6;rt&#x26;&#x3c;&#x22;q&#x27;&#x3e;&#x1f510;'],
  ['as HTML with numeric non-ASCII', 's3cr/t w&#246;rt&amp;&lt;&quot;q&#39;&gt;&#128272;'],
  // Escapings no common encoder writes, but any server may: the escaping is undone, not matched.
  [
    'as zero-padded and upper-case character references',
    's3cr/t w&#0246;rt&#X26;&#x3C;&#034;q&#39;&#x3E;&#x1F510;',
  ],
  ['with every character percent-encoded', everyByte(VALUE)],
  ['percent-encoded in mixed-case hex', 's3cr%2ft%20w%C3%b6rt%26%3c%22q%27%3E%f0%9F%94%90'],
  ['as JSON with every character a \\u escape', everyCodeUnit(VALUE)],
];

/** `text` as UTF-8 with every byte percent-encoded, letters and digits included. */
function everyByte(text: string): string {
  return Array.from(
    new TextEncoder().encode(text),
    (byte) => `%${byte.toString(16).padStart(2, '0')}`,
  ).join('');
}

/** `text` as JSON string contents with every code unit written as `\uXXXX`. */
function everyCodeUnit(text: string): string {
  return Array.from(
    { length: text.length },
    (_, index) => `\\u${text.charCodeAt(index).toString(16).padStart(4, '0')}`,
  ).join('');
}

/** TOKEN as servers in the wild echo it. */
const TOKEN_ENCODINGS: ReadonlyArray<readonly [string, string]> = [
  ["by PHP's json_encode", 'sv\\/tok+en=ab&cd<ef>\\"gh\''],
  ["by Go's encoding/json", 'sv/tok+en=ab\\u0026cd\\u003cef\\u003e\\"gh\''],
  ['by encodeURIComponent', "sv%2Ftok%2Ben%3Dab%26cd%3Cef%3E%22gh'"],
  ['as a form field (URLSearchParams)', 'sv%2Ftok%2Ben%3Dab%26cd%3Cef%3E%22gh%27'],
  ["by Python's html.escape", 'sv/tok+en=ab&amp;cd&lt;ef&gt;&quot;gh&#x27;'],
  ["by Go's html.EscapeString", 'sv/tok+en=ab&amp;cd&lt;ef&gt;&#34;gh&#39;'],
  ['as decimal character references', 'sv/tok+en=ab&#38;cd&#60;ef&#62;&#34;gh&#39;'],
];

function renderings(error: unknown): string[] {
  return [
    (error as Error).message,
    String(error),
    JSON.stringify(error),
    inspect(error, { depth: 10, showHidden: true }),
  ];
}

function expectAbsent(error: unknown, texts: readonly string[]): void {
  expect(error).toBeInstanceOf(SecretsVaultError);
  for (const rendering of renderings(error)) {
    for (const text of texts) expect(rendering).not.toContain(text);
  }
}

const createSecret = () =>
  createClient({ token: TOKEN }).secrets.create('vlt_1', {
    name: 'db',
    value: { password: VALUE },
  });

describe('every common encoding of a secret is scrubbed from error messages', () => {
  it.each(VALUE_ENCODINGS)('scrubs a value echoed %s', async (_how, encoded) => {
    route('post', '/vaults/:id/secrets', () =>
      fail(422, 'validation_error', `value ${encoded} is not allowed`),
    );
    const error = await rejectionOf(createSecret());
    expectAbsent(error, [encoded, VALUE]);
    expect((error as Error).message).toBe('value [REDACTED] is not allowed');
  });

  it.each(TOKEN_ENCODINGS)('scrubs the token echoed %s', async (_how, encoded) => {
    route('post', '/vaults/:id/secrets', () =>
      fail(401, 'unauthorized', `unknown token ${encoded}`),
    );
    const error = await rejectionOf(createSecret());
    expectAbsent(error, [encoded, TOKEN]);
    expect((error as Error).message).toBe('unknown token [REDACTED]');
  });
});

describe('response headers of an APIError are scrubbed', () => {
  it('replaces the token and values a server echoes in its headers, keeping the others', async () => {
    route('post', '/vaults/:id/secrets', (_call, request) =>
      fail(429, 'rate_limited', 'slow down', {
        'Retry-After': '7',
        'X-Echo-Authorization': request.headers.get('authorization') ?? '',
        'X-Debug-Body': JSON.stringify(request.body),
        'X-Echo-Query': `password=${encodeURIComponent('hunter2 plain/ascii')}`,
      }),
    );
    const error = await rejectionOf(
      createClient({ token: TOKEN }).secrets.create('vlt_1', {
        name: 'db',
        value: { password: 'hunter2 plain/ascii' },
      }),
    );

    expect(error).toBeInstanceOf(RateLimitError);
    const { headers } = error as APIError;
    expect(headers).toBeInstanceOf(Headers);
    expect(headers.get('x-echo-authorization')).toBe('Bearer [REDACTED]');
    expect(headers.get('x-debug-body')).toBe('{"name":"db","value":{"password":"[REDACTED]"}}');
    expect(headers.get('x-echo-query')).toBe('password=[REDACTED]');
    // What is not secret is left as the server sent it.
    expect(headers.get('retry-after')).toBe('7');
    expect(headers.get('x-request-id')).toMatch(/^req_/);
    expect((error as RateLimitError).retryAfter).toBe(7);
    expect((error as APIError).requestId).toBe(headers.get('x-request-id'));
    expectAbsent(error, [
      TOKEN,
      encodeURIComponent(TOKEN),
      'hunter2 plain/ascii',
      'hunter2%20plain%2Fascii',
    ]);
  });
});

describe('any value, escaped by any common encoder, is scrubbed (property)', () => {
  const encoders: ReadonlyArray<readonly [string, (text: string) => string]> = [
    ['verbatim', (text) => text],
    ['as JSON', (text) => JSON.stringify(text).slice(1, -1)],
    ['by encodeURIComponent', encodeURIComponent],
    ['as a form field', (text) => new URLSearchParams({ v: text }).toString().slice(2)],
    ['as HTML', (text) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`)],
    ['with every byte percent-encoded', everyByte],
    ['as JSON with every code unit escaped', everyCodeUnit],
  ];
  // Letters, the characters every escaping treats specially, non-ASCII and beyond the BMP.
  const character = fc.oneof(
    fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }),
    fc.constantFrom('%', '&', '\\', '+', '"', "'", '<', '/', ';', '#', 'ö', '€', '🔐', ' '),
  );
  const value = fc
    .array(character, { minLength: 4, maxLength: 24 })
    .map((characters) => characters.join(''))
    // What the message says around the value, or the marker itself, cannot be told from it.
    .filter((text) => text.trim().length >= 4 && !'value [REDACTED] is not allowed'.includes(text));

  it('leaves neither the value nor its escaped form in the error', async () => {
    await fc.assert(
      fc.asyncProperty(value, fc.constantFrom(...encoders), async (password, [, encode]) => {
        const encoded = encode(password);
        route('post', '/vaults/:id/secrets', () =>
          fail(422, 'validation_error', `value ${encoded} is not allowed`),
        );
        const error = await rejectionOf(
          createClient().secrets.create('vlt_1', { name: 'db', value: { password } }),
        );
        const { message } = error as Error;
        expect(message).toMatch(/^value .*\[REDACTED\].* is not allowed$/);
        expect(message).not.toContain(password);
        expect(message).not.toContain(encoded);
      }),
      { numRuns: 300 },
    );
  });
});
