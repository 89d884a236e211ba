/**
 * The fallback snapshot of `secrets-vault run --fallback <file>`: the last good load of its vaults,
 * encrypted with AES-256-GCM under a key the job holds (`SECRETS_VAULT_FALLBACK_KEY`), so a job
 * can still start when the service stays unavailable for the whole wait. GCM authenticates as
 * well as encrypts: a wrong key or a file changed by anyone is refused as a whole, never read as
 * garbage variables.
 *
 * A snapshot is bound to what it was loaded from: the service's origin (`scheme://host:port` of
 * `SECRETS_VAULT_BASE_URL`) is authenticated with it, and the vaults' ids are inside it, so a
 * job pointed at another service or other vaults never starts from it.
 *
 * File layout: `SVFB` and a version byte, a 12-byte random nonce, the ciphertext of a JSON
 * document, and the 16-byte tag. The header and the service's origin are the additional
 * authenticated data: the origin is never written to the file, it must match to decrypt.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { MAX_RESPONSE_BYTES } from '../core/transport/body.js';
import { CommandError } from './errors.js';
import { whyNotARegularFile, writeFileAtomically } from './files.js';

/** @internal A snapshot that cannot be used, or written; `exitCode` is what the command exits with. */
export class FallbackError extends CommandError {
  override name = 'FallbackError';
}

/** @internal What a snapshot must match to be used. */
export interface SnapshotExpectation {
  /** The vaults of `--vault`, in order: a snapshot of other vaults, or in another order, is refused. */
  readonly vaultIds: readonly string[];
  /** The origin of `SECRETS_VAULT_BASE_URL` (`new URL(…).origin`): one saved from another is refused. */
  readonly origin: string;
  /** The most milliseconds ago it may have been saved, as given (`90s`); no limit when absent. */
  readonly maxAge?: { readonly milliseconds: number; readonly text: string } | undefined;
}

/** @internal One vault's secrets as a snapshot holds them: secret name to its value object. */
export interface VaultSecrets {
  readonly vaultId: string;
  readonly secrets: Readonly<Record<string, Readonly<Record<string, string>>>>;
}

/** @internal What a snapshot holds: plain data, never the redacting objects `load` returns. */
export interface Snapshot {
  /** The vaults it was loaded from, in the order given, each with its secrets. */
  readonly vaults: readonly VaultSecrets[];
  /** When it was written (`Date.now()`), to announce its age. */
  readonly savedAt: number;
  /** The `vault://` references of the job's environment, each with the value it resolved to. */
  readonly references: Readonly<Record<string, string>>;
}

/** The environment variable that holds the key. */
export const FALLBACK_KEY_VARIABLE = 'SECRETS_VAULT_FALLBACK_KEY';

// Version 2 authenticates the service's origin; version 1 did not, and is no longer read.
const MAGIC = Buffer.from('SVFB\u0002', 'latin1');
const UNBOUND_MAGIC = Buffer.from('SVFB\u0001', 'latin1');
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
/**
 * @internal The largest snapshot written or read. A vault's values arrive in one response of at
 * most this size (with its envelope and metadata), and a job's vaults together hold far less in
 * practice: a larger file is not a snapshot, and is refused before it is read.
 */
export const MAX_SNAPSHOT_BYTES = MAX_RESPONSE_BYTES;

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
  // 32 equal bytes is a mistake, not a key (`head -c 32 /dev/zero | base64`): anyone can guess it.
  if (key.every((byte) => byte === key[0])) {
    throw new FallbackError(
      `${FALLBACK_KEY_VARIABLE} is 32 equal bytes, which anyone can guess: make a random one (openssl rand -base64 32)`,
      2,
    );
  }
  return key;
}

/**
 * @internal Refuses `file` as the place of a snapshot unless nothing is there yet or a regular
 * file is (a link to one included, replaced as a link). A snapshot is read back later, and
 * replaced whole: a FIFO, a device or `/dev/stdout` can be neither, and writing an encrypted
 * snapshot into a pipe serves no reader, so it is refused rather than written into or replaced.
 * Called before the vault is loaded, so that a mistaken path costs no request, and again by
 * {@link writeSnapshot}.
 * @throws {FallbackError} (exit 1) naming the file and what is there
 */
export function checkSnapshotPath(file: string): void {
  let problem: string | undefined;
  try {
    problem = whyNotARegularFile(file);
  } catch (error) {
    throw new FallbackError(`cannot write the snapshot ${file}: ${codeOf(error)}`, 1);
  }
  if (problem !== undefined) {
    throw new FallbackError(
      `the snapshot ${file} is not written: it ${problem}, and a snapshot is only ever a regular file`,
      1,
    );
  }
}

/**
 * @internal Writes `snapshot`, loaded from the service at `origin`, to `file`: encrypted, bound to
 * `origin`, atomically and with mode 0600 (see {@link writeFileAtomically}): a reader sees the old
 * snapshot or the new one, never half of one, and never a file others can read. Only a regular
 * file is replaced (see {@link checkSnapshotPath}).
 * @throws {FallbackError} when the file cannot be written, is not a regular file, or would be
 *   larger than a snapshot is read
 */
export function writeSnapshot(file: string, key: Buffer, origin: string, snapshot: Snapshot): void {
  checkSnapshotPath(file);
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  cipher.setAAD(boundData(origin));
  const ciphertext = Buffer.concat([
    cipher.update(JSON.stringify(snapshot), 'utf8'),
    cipher.final(),
  ]);
  const data = Buffer.concat([MAGIC, nonce, ciphertext, cipher.getAuthTag()]);
  // Never write what would be refused when it is needed.
  if (data.length > MAX_SNAPSHOT_BYTES) {
    throw new FallbackError(
      `the snapshot ${file} is not written: it would be larger than ${MAX_SNAPSHOT_BYTES / 1024 / 1024} MiB`,
      1,
    );
  }
  try {
    writeFileAtomically(file, data);
  } catch (error) {
    throw new FallbackError(`cannot write the snapshot ${file}: ${codeOf(error)}`, 1);
  }
}

/**
 * @internal Reads and decrypts the snapshot in `file`, if it matches `expected`.
 * @throws {FallbackError} exit 75 when there is no usable snapshot yet and only the service is to
 *   blame (none written, one written by an earlier version, one older than the maximum age); exit 1
 *   when the file is not a regular file, is too large, cannot be read, was changed, was written
 *   with another key or from another service, or holds another vault
 */
export function readSnapshot(file: string, key: Buffer, expected: SnapshotExpectation): Snapshot {
  const data = readSnapshotFile(file);
  const unusable = new FallbackError(
    `cannot decrypt the snapshot ${file}: wrong ${FALLBACK_KEY_VARIABLE}, or the file was changed, or it was saved from another service than SECRETS_VAULT_BASE_URL`,
    1,
  );
  if (data.subarray(0, UNBOUND_MAGIC.length).equals(UNBOUND_MAGIC)) {
    throw new FallbackError(
      `the snapshot ${file} was written by an earlier secrets-vault, not bound to its service, and is not read (the next good load replaces it)`,
      75,
    );
  }
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
    decipher.setAAD(boundData(expected.origin));
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
  const held = snapshot.vaults.map(({ vaultId }) => vaultId);
  if (held.join(',') !== expected.vaultIds.join(',')) {
    throw new FallbackError(`the snapshot ${file} holds other vaults than --vault`, 1);
  }
  const { maxAge } = expected;
  if (maxAge !== undefined && Date.now() - snapshot.savedAt > maxAge.milliseconds) {
    throw new FallbackError(
      `the snapshot ${file} is not used: saved ${describeAge(snapshot.savedAt)} ago, more than --fallback-max-age ${maxAge.text}`,
      75,
    );
  }
  return snapshot;
}

/**
 * @internal The snapshot in `file` if it can stand in for a load right now (`run --cache-ttl`), else
 * undefined, whatever the reason. It must pass every check of {@link readSnapshot} (`expected`:
 * its vaults in order, its service, the key, an intact file), have been saved less than `ttl`
 * milliseconds before `now`, and hold a value for each of `references` (the `vault://` references
 * of the job's environment, which a load would resolve). Only a good load ever writes a snapshot
 * (`run` after its load, `export --format snapshot`), and `savedAt` is the time of that load, so
 * its age is the age of the values. A `savedAt` later than `now` (a clock that stepped back, a
 * writer whose clock runs ahead) is stale, never fresh: its age cannot be known.
 */
export function readFreshSnapshot(
  file: string,
  key: Buffer,
  expected: SnapshotExpectation,
  ttl: number,
  references: readonly string[],
  now = Date.now(),
): Snapshot | undefined {
  let snapshot: Snapshot;
  try {
    snapshot = readSnapshot(file, key, expected);
  } catch (error) {
    // Missing, damaged, another key, service or vaults: the load that follows replaces it.
    if (error instanceof FallbackError) return undefined;
    throw error;
  }
  const age = now - snapshot.savedAt;
  if (age < 0 || age >= ttl) return undefined;
  if (!references.every((reference) => Object.hasOwn(snapshot.references, reference))) {
    return undefined;
  }
  return snapshot;
}

/** What is authenticated besides the ciphertext: the header, then the service's origin. */
function boundData(origin: string): Buffer {
  return Buffer.concat([MAGIC, Buffer.from(origin, 'utf8')]);
}

/**
 * The bytes of `file`, if it is a regular file (or a link to one) of at most
 * {@link MAX_SNAPSHOT_BYTES}. The checks are made on the opened file, so what is checked is what
 * is read: a FIFO would block the read (and the job) for ever, a link to `/dev/zero` would be
 * read until memory runs out.
 */
function readSnapshotFile(file: string): Buffer {
  let descriptor: number;
  try {
    // Non-blocking: opening a FIFO for reading otherwise waits for a writer, for ever.
    descriptor = openSync(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    const code = codeOf(error);
    throw code === 'ENOENT'
      ? new FallbackError(
          `no snapshot at ${file} yet (none was written by a good load or by export --format snapshot)`,
          75,
        )
      : new FallbackError(`cannot read the snapshot ${file}: ${code}`, 1);
  }
  try {
    const stats = fstatSync(descriptor);
    if (!stats.isFile()) {
      throw new FallbackError(`the snapshot ${file} is not a regular file`, 1);
    }
    if (stats.size > MAX_SNAPSHOT_BYTES) {
      throw new FallbackError(
        `the snapshot ${file} is larger than ${MAX_SNAPSHOT_BYTES / 1024 / 1024} MiB, which no snapshot is`,
        1,
      );
    }
    // At most the size seen: a file that grows meanwhile is cut there, and the tag judges it.
    const data = Buffer.alloc(stats.size);
    let length = 0;
    while (length < data.length) {
      const read = readSync(descriptor, data, length, data.length - length, null);
      if (read === 0) break;
      length += read;
    }
    return data.subarray(0, length);
  } catch (error) {
    if (error instanceof FallbackError) throw error;
    throw new FallbackError(`cannot read the snapshot ${file}: ${codeOf(error)}`, 1);
  } finally {
    closeSync(descriptor);
  }
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
  const { vaults, savedAt, references } = value as Record<string, unknown>;
  const isStrings = (item: unknown): item is Record<string, string> =>
    typeof item === 'object' &&
    item !== null &&
    !Array.isArray(item) &&
    Object.values(item).every((entry) => typeof entry === 'string');
  const isVault = (item: unknown): item is VaultSecrets => {
    if (typeof item !== 'object' || item === null) return false;
    const { vaultId, secrets } = item as Record<string, unknown>;
    return (
      typeof vaultId === 'string' &&
      typeof secrets === 'object' &&
      secrets !== null &&
      !Array.isArray(secrets) &&
      Object.values(secrets).every(isStrings)
    );
  };
  if (
    !Array.isArray(vaults) ||
    !vaults.every(isVault) ||
    typeof savedAt !== 'number' ||
    !Number.isFinite(savedAt) ||
    !isStrings(references)
  ) {
    return undefined;
  }
  return {
    vaults: vaults.map(({ vaultId, secrets }) => ({ vaultId, secrets })),
    savedAt,
    references,
  };
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
