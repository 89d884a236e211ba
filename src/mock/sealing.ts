/**
 * Secret values at rest: AES-GCM with a key made per mock instance (Web Crypto, so it runs in
 * browsers too). A dump of the store shows ciphertext, never a value.
 */

/** A sealed secret value: a random IV and the AES-GCM ciphertext of its JSON. */
export interface SealedValue {
  readonly iv: Uint8Array<ArrayBuffer>;
  readonly ciphertext: ArrayBuffer;
}

/** @internal Seals and opens secret values with one AES-256-GCM key. */
export class ValueSealer {
  readonly #key: Promise<CryptoKey>;

  constructor() {
    this.#key = crypto.subtle.generateKey({ name: 'AES-GCM', length: 256 }, false, [
      'encrypt',
      'decrypt',
    ]);
  }

  async seal(value: Record<string, string>): Promise<SealedValue> {
    const iv = crypto.getRandomValues(new Uint8Array(12));
    const plaintext = new TextEncoder().encode(JSON.stringify(value));
    const ciphertext = await crypto.subtle.encrypt(
      { name: 'AES-GCM', iv },
      await this.#key,
      plaintext,
    );
    return { iv, ciphertext };
  }

  async open(sealed: SealedValue): Promise<Record<string, string>> {
    const plaintext = await crypto.subtle.decrypt(
      { name: 'AES-GCM', iv: sealed.iv },
      await this.#key,
      sealed.ciphertext,
    );
    return JSON.parse(new TextDecoder().decode(plaintext)) as Record<string, string>;
  }
}
