/**
 * The browser build's `system-error.ts`: a browser's fetch gives no system error codes.
 */
import type * as SystemErrors from './system-error.js';

/** @internal Always false: a browser's fetch throws a browser's messages. */
export const isRuntimeFetchFailure: typeof SystemErrors.isRuntimeFetchFailure = () => false;

/** @internal Always false: a browser's fetch gives no system error codes. */
export const hasNetworkErrorCode: typeof SystemErrors.hasNetworkErrorCode = () => false;

/** @internal Always undefined: a browser's fetch gives no system error codes. */
export const findSystemError: typeof SystemErrors.findSystemError = () => undefined;
