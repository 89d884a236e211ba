/**
 * Secret values at rest: AES-256-GCM with a key made per mock instance, so a dump of the store
 * shows ciphertext, never a value.
 *
 * Browsers and workers use Web Crypto. Where the runtime offers `node:crypto` (Node, Bun, Deno)
 * the same cipher runs through it instead: Node 24's Web Crypto can abort the whole process
 * (`Assertion failed: errors->Empty()` in `CipherJob::ToResult`) when an AES job completes while
 * another part of the process has left an OpenSSL error behind, which MSW's interception does.
 * The module is reached through `process.getBuiltinModule`, so browser bundles never see it.
 */

/** A sealed secret value: a random IV and the AES-GCM ciphertext (with its tag) of its JSON. */
export interface SealedValue {
  readonly iv: Uint8Array<ArrayBuffer>;
  readonly ciphertext: Uint8Array<ArrayBuffer>;
}

interface NodeCipher {
  update(data: Uint8Array): Uint8Array;
  final(): Uint8Array;
  getAuthTag(): Uint8Array;
}
interface NodeDecipher {
  update(data: Uint8Array): Uint8Array;
  final(): Uint8Array;
  setAuthTag(tag: Uint8Array): void;
}
interface NodeCrypto {
  createCipheriv(algorithm: 'aes-256-gcm', key: Uint8Array, iv: Uint8Array): NodeCipher;
  createDecipheriv(algorithm: 'aes-256-gcm', key: Uint8Array, iv: Uint8Array): NodeDecipher;
}

const TAG_BYTES = 16;

function nodeCrypto(): NodeCrypto | undefined {
  const runtime = globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } };
  return runtime.process?.getBuiltinModule?.('node:crypto') as NodeCrypto | undefined;
}

function concat(...parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((size, part) => size + part.byteLength, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.byteLength;
  }
  return out;
}

/** @internal Seals and opens secret values with one AES-256-GCM key. */
export class ValueSealer {
  readonly #rawKey = crypto.getRandomValues(new Uint8Array(32));
  readonly #node = nodeCrypto();
  #webKey: Promise<CryptoKey> | undefined;

  async seal(value: Record<string, string>): Promise<SealedValue> {
    const iv = crypto.getRandomValues(new Uint8Array(12));
    const plaintext = new TextEncoder().encode(JSON.stringify(value));
    if (this.#node) {
      const cipher = this.#node.createCipheriv('aes-256-gcm', this.#rawKey, iv);
      return {
        iv,
        ciphertext: concat(cipher.update(plaintext), cipher.final(), cipher.getAuthTag()),
      };
    }
    const ciphertext = await crypto.subtle.encrypt(
      { name: 'AES-GCM', iv },
      await this.#key(),
      plaintext,
    );
    return { iv, ciphertext: new Uint8Array(ciphertext) };
  }

  async open(sealed: SealedValue): Promise<Record<string, string>> {
    let plaintext: Uint8Array;
    if (this.#node) {
      const body = sealed.ciphertext.subarray(0, sealed.ciphertext.byteLength - TAG_BYTES);
      const decipher = this.#node.createDecipheriv('aes-256-gcm', this.#rawKey, sealed.iv);
      decipher.setAuthTag(sealed.ciphertext.subarray(sealed.ciphertext.byteLength - TAG_BYTES));
      plaintext = concat(decipher.update(body), decipher.final());
    } else {
      plaintext = new Uint8Array(
        await crypto.subtle.decrypt(
          { name: 'AES-GCM', iv: sealed.iv },
          await this.#key(),
          sealed.ciphertext,
        ),
      );
    }
    return JSON.parse(new TextDecoder().decode(plaintext)) as Record<string, string>;
  }

  #key(): Promise<CryptoKey> {
    this.#webKey ??= crypto.subtle.importKey('raw', this.#rawKey, { name: 'AES-GCM' }, false, [
      'encrypt',
      'decrypt',
    ]);
    return this.#webKey;
  }
}
