/**
 * Secret values at rest in the mock are AES-256-GCM ciphertext, through node:crypto where the
 * runtime has it and through Web Crypto elsewhere (browsers): both round-trip, neither stores a
 * value in the clear, and tampering is detected.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ValueSealer } from '../../src/mock/sealing.js';

const VALUE = { password: 'plain-text-should-not-appear', user: 'ada' };

function contains(haystack: Uint8Array, needle: string): boolean {
  return Buffer.from(haystack).includes(Buffer.from(needle));
}

describe.each([
  ['node:crypto', false],
  ['Web Crypto', true],
])('sealing with %s', (_name, hideNodeCrypto) => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  const sealer = () => {
    if (hideNodeCrypto) vi.spyOn(process, 'getBuiltinModule').mockReturnValue(undefined as never);
    return new ValueSealer();
  };

  it('round-trips a value and never stores it in the clear', async () => {
    const subject = sealer();
    const sealed = await subject.seal(VALUE);
    expect(sealed.iv).toHaveLength(12);
    expect(contains(sealed.ciphertext, VALUE.password)).toBe(false);
    expect(contains(sealed.ciphertext, 'user')).toBe(false);
    expect(await subject.open(sealed)).toEqual(VALUE);
  });

  it('uses a fresh IV per value', async () => {
    const subject = sealer();
    const [a, b] = await Promise.all([subject.seal(VALUE), subject.seal(VALUE)]);
    expect(Buffer.from(a.iv).equals(Buffer.from(b.iv))).toBe(false);
    expect(Buffer.from(a.ciphertext).equals(Buffer.from(b.ciphertext))).toBe(false);
  });

  it('refuses a tampered ciphertext', async () => {
    const subject = sealer();
    const sealed = await subject.seal(VALUE);
    const tampered = new Uint8Array(sealed.ciphertext);
    tampered[0] = (tampered[0] ?? 0) ^ 0xff;
    await expect(subject.open({ iv: sealed.iv, ciphertext: tampered })).rejects.toThrow();
  });
});
