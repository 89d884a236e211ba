/**
 * The `Idempotency-Key` of creating POSTs. The key is chosen once per
 * call, before the first attempt, and every retry of that call sends the same key.
 */
import { RequestValidationError } from './errors.js';

// 1 to 255 printable ASCII characters, as the service requires. Leading or trailing spaces are refused too: fetch
// trims header values, so the server would file the request under a different key.
const VALID_KEY = /^(?! )[\x20-\x7e]{1,255}(?<! )$/;

/**
 * Returns the caller's key, checked against the contract's rules, or a fresh random UUID.
 *
 * @throws {RequestValidationError} when the caller's key is empty, too long or not printable ASCII
 */
export function resolveIdempotencyKey(callerKey: string | undefined): string {
  if (callerKey === undefined) return crypto.randomUUID();
  if (typeof callerKey !== 'string' || !VALID_KEY.test(callerKey)) {
    throw new RequestValidationError([
      {
        path: ['idempotencyKey'],
        message: 'must be 1 to 255 printable ASCII characters, without leading or trailing spaces',
      },
    ]);
  }
  return callerKey;
}
