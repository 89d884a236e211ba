/**
 * The fallback snapshot of `secrets-vault run --fallback <file>`: the last good load of a vault,
 * encrypted with AES-256-GCM under a key the job holds (`SECRETS_VAULT_FALLBACK_KEY`), so a job
 * can still start when the service stays unavailable for the whole wait. GCM authenticates as
 * well as encrypts: a wrong key or a file changed by anyone is refused as a whole, never read as
 * garbage variables.
 *
 * File layout: `SVFB` and a version byte (both authenticated), a 12-byte random nonce, the
 * ciphertext of a JSON document, and the 16-byte tag.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { writeFileAtomically } from './files.js';

/** @internal A snapshot that cannot be used, or written; `exitCode` is what the command exits with. */
export class FallbackError extends Error {
  override name = 'FallbackError';
  readonly exitCode: number;

  constructor(message: string, exitCode: number) {
    super(message);
    this.exitCode = exitCode;
  }
}

/** @internal What a snapshot holds: plain data, never the redacting objects `load` returns. */
export interface Snapshot {
  /** The vault it was loaded from: a snapshot of another vault is refused. */
  readonly vaultId: string;
  /** When it was written (`Date.now()`), to announce its age. */
  readonly savedAt: number;
  /** The loaded secrets: secret name to its value object. */
  readonly secrets: Readonly<Record<string, Readonly<Record<string, string>>>>;
  /** The `vault://` references of the job's environment, each with the value it resolved to. */
  readonly references: Readonly<Record<string, string>>;
}

/** The environment variable that holds the key. */
export const FALLBACK_KEY_VARIABLE = 'SECRETS_VAULT_FALLBACK_KEY';

const MAGIC = Buffer.from('SVFB\u0001', 'latin1');
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
// A snapshot is a vault's values: far below this. A larger file is not ours.
const MAX_SNAPSHOT_BYTES = 64 * 1024 * 1024;

/**
 * @internal Reads the key: 32 bytes written as 64 hex digits or as base64 (`openssl rand
 * -base64 32`).
 * @throws {FallbackError} (a usage error, exit 2) naming the variable, never its value
 */
export function readFallbackKey(text: string | undefined): Buffer {
  const value = text?.trim() ?? '';
  if (value === '') {
    throw new FallbackError(`--fallback needs a key in ${FALLBACK_KEY_VARIABLE}`, 2);
  }
  let key: Buffer | undefined;
  if (/^[0-9a-fA-F]{64}$/.test(value)) key = Buffer.from(value, 'hex');
  else if (/^[A-Za-z0-9+/_-]{43}=?$/.test(value)) key = Buffer.from(value, 'base64');
  if (key?.length !== 32) {
    throw new FallbackError(
      `${FALLBACK_KEY_VARIABLE} must be 32 bytes as 64 hex digits or base64 (openssl rand -base64 32)`,
      2,
    );
  }
  return key;
}

/**
 * @internal Writes `snapshot` to `file`, encrypted, atomically and with mode 0600 (see
 * {@link writeFileAtomically}): a reader sees the old snapshot or the new one, never half of one,
 * and never a file others can read.
 * @throws {FallbackError} when the file cannot be written
 */
export function writeSnapshot(file: string, key: Buffer, snapshot: Snapshot): void {
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  cipher.setAAD(MAGIC);
  const ciphertext = Buffer.concat([
    cipher.update(JSON.stringify(snapshot), 'utf8'),
    cipher.final(),
  ]);
  const data = Buffer.concat([MAGIC, nonce, ciphertext, cipher.getAuthTag()]);
  try {
    writeFileAtomically(file, data);
  } catch (error) {
    throw new FallbackError(`cannot write the snapshot ${file}: ${codeOf(error)}`, 1);
  }
}

/**
 * @internal Reads and decrypts the snapshot of `vaultId` in `file`.
 * @throws {FallbackError} exit 75 when there is no snapshot yet (the service is still the
 *   problem); exit 1 when it cannot be read, was changed, was written with another key, or holds
 *   another vault
 */
export function readSnapshot(file: string, key: Buffer, vaultId: string): Snapshot {
  let data: Buffer;
  try {
    if (statSync(file).size > MAX_SNAPSHOT_BYTES) {
      throw new FallbackError(`the snapshot ${file} is larger than a snapshot can be`, 1);
    }
    data = readFileSync(file);
  } catch (error) {
    if (error instanceof FallbackError) throw error;
    const code = codeOf(error);
    throw code === 'ENOENT'
      ? new FallbackError(`no snapshot at ${file} yet (none was written by a good load)`, 75)
      : new FallbackError(`cannot read the snapshot ${file}: ${code}`, 1);
  }
  const unusable = new FallbackError(
    `cannot decrypt the snapshot ${file}: wrong ${FALLBACK_KEY_VARIABLE}, or the file was changed`,
    1,
  );
  if (
    data.length < MAGIC.length + NONCE_BYTES + TAG_BYTES ||
    !data.subarray(0, MAGIC.length).equals(MAGIC)
  ) {
    throw unusable;
  }
  let plaintext: string;
  try {
    const nonce = data.subarray(MAGIC.length, MAGIC.length + NONCE_BYTES);
    const decipher = createDecipheriv('aes-256-gcm', key, nonce);
    decipher.setAAD(MAGIC);
    decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
    plaintext = Buffer.concat([
      decipher.update(data.subarray(MAGIC.length + NONCE_BYTES, data.length - TAG_BYTES)),
      decipher.final(),
    ]).toString('utf8');
  } catch {
    throw unusable;
  }
  const snapshot = parseSnapshot(plaintext);
  if (snapshot === undefined) throw unusable;
  if (snapshot.vaultId !== vaultId) {
    throw new FallbackError(`the snapshot ${file} holds another vault than --vault`, 1);
  }
  return snapshot;
}

/** The snapshot in `text`, or undefined when it is not one (a version this command cannot read). */
function parseSnapshot(text: string): Snapshot | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { vaultId, savedAt, secrets, references } = value as Record<string, unknown>;
  const isStrings = (item: unknown): item is Record<string, string> =>
    typeof item === 'object' &&
    item !== null &&
    !Array.isArray(item) &&
    Object.values(item).every((entry) => typeof entry === 'string');
  if (
    typeof vaultId !== 'string' ||
    typeof savedAt !== 'number' ||
    !Number.isFinite(savedAt) ||
    typeof secrets !== 'object' ||
    secrets === null ||
    Array.isArray(secrets) ||
    !Object.values(secrets).every(isStrings) ||
    !isStrings(references)
  ) {
    return undefined;
  }
  return { vaultId, savedAt, secrets: secrets as Snapshot['secrets'], references };
}

/** How long ago `savedAt` was, in words: `42s`, `3m 12s`, `5h 3m`, `2d 4h`. */
export function describeAge(savedAt: number, now = Date.now()): string {
  const seconds = Math.max(0, Math.round((now - savedAt) / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${seconds % 60}s`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return `${hours}h ${minutes % 60}m`;
  return `${Math.floor(hours / 24)}d ${hours % 24}h`;
}

function codeOf(error: unknown): string {
  return (error as NodeJS.ErrnoException | undefined)?.code ?? 'unknown error';
}
