/**
 * The browser build's `node-http.ts`: a web page has no `node:http`, so requests always go
 * through its fetch.
 */
import type * as NodeHttp from './node-http.js';

/** @internal Always `viaFetch`: a web page sends with its fetch. */
export const runtimeSender: typeof NodeHttp.runtimeSender = (viaFetch) => viaFetch;
