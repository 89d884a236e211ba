/**
 * The one place where what sends a client's bytes is chosen, once per client: the caller's
 * `fetch`, else the runtime's fastest (node:http in Node, see node-http.ts), else the runtime's
 * `fetch`. Every sender reports failures alike (sender.ts), so nothing above asks which one.
 */
import { fetchSender, globalFetch } from './fetch.js';
import { runtimeSender } from './node-http.js';
import type { HttpSend } from './sender.js';

/** @internal The sender of a client given `fetch` (its `fetch` option), or none. */
export function chooseSender(fetch: typeof globalThis.fetch | undefined): HttpSend {
  return fetch ? fetchSender(fetch) : runtimeSender(fetchSender(globalFetch));
}
