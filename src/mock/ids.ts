/**
 * Where the mock's ids get their random part: the platform's UUIDs, or, for a mock given a seed,
 * a small generator seeded by it, so that the same seed and the same requests make the same ids
 * in any process (a test suite in another language can then write them down).
 */

/** @internal Makes the random part of one id: a version 4 UUID as text. */
export type RandomUuid = () => string;

/** @internal The platform's UUIDs without a seed; a generator seeded by `seed` with one. */
export function createRandomUuid(seed: number | undefined): RandomUuid {
  if (seed === undefined) return () => crypto.randomUUID();
  const next = sfc32(cyrb128(String(seed)));
  return () => {
    const bytes = new Uint8Array(16);
    for (let offset = 0; offset < 16; offset += 4) {
      new DataView(bytes.buffer).setUint32(offset, next());
    }
    // Version 4 and the RFC 4122 variant, as `crypto.randomUUID()` sets them.
    bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x40;
    bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
    const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  };
}

/** @internal Whether `seed` is one the mock takes: an integer from 0 to 2^53 - 1. */
export function isMockSeed(seed: unknown): seed is number {
  return typeof seed === 'number' && Number.isSafeInteger(seed) && seed >= 0;
}

// cyrb128 and sfc32 (public domain, from bryc's "PRNGs" notes): four 32-bit words of state from
// a string, then a fast generator with a long period. Not for secrets: the mock's ids guard nothing.
function cyrb128(text: string): [number, number, number, number] {
  let h1 = 1779033703;
  let h2 = 3144134277;
  let h3 = 1013904242;
  let h4 = 2773480762;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    h1 = h2 ^ Math.imul(h1 ^ code, 597399067);
    h2 = h3 ^ Math.imul(h2 ^ code, 2869860233);
    h3 = h4 ^ Math.imul(h3 ^ code, 951274213);
    h4 = h1 ^ Math.imul(h4 ^ code, 2716044179);
  }
  h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
  h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
  h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
  h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
  h1 ^= h2 ^ h3 ^ h4;
  h2 ^= h1;
  h3 ^= h1;
  h4 ^= h1;
  return [h1 >>> 0, h2 >>> 0, h3 >>> 0, h4 >>> 0];
}

function sfc32([first, second, third, fourth]: [number, number, number, number]): () => number {
  let a = first;
  let b = second;
  let c = third;
  let d = fourth;
  return () => {
    a |= 0;
    b |= 0;
    c |= 0;
    d |= 0;
    const result = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + result) | 0;
    return result >>> 0;
  };
}
