/**
 * stripe-node, through `stripe.rawRequest`, its documented way to call an endpoint it has no
 * method for. In Node it sends with node:http (its default HTTP client, with its own keep-alive
 * agent), collects the body and `JSON.parse`s it.
 *
 * Its defaults, all kept: 2 retries (`maxNetworkRetries`) with backoff, an 80 s timeout, an
 * `Idempotency-Key` it makes for every POST, and telemetry (which sends nothing here: it reports
 * the previous request's `request-id` header, which the bench server does not send). The only
 * change is where it connects: `host`, `port` and `protocol` point it at the loopback server.
 *
 * Paths under /v1 are Stripe's v1 API, whose POST bodies are form-encoded
 * (`name=stripe&type=api_key&value[api_key]=…`); only /v2 paths get JSON. The bench server reads
 * and discards the body whatever its type, so the create is the same call for the server.
 */
import Stripe from 'stripe';
import { CREATE_PARAMS, PATHS, TOKEN } from '../fixtures.ts';
import type { Calls } from './calls.ts';

export function stripeCalls(base: string): Calls {
  const { hostname, port } = new URL(base);
  const stripe = new Stripe(TOKEN, { host: hostname, port, protocol: 'http' });
  return {
    get: () => stripe.rawRequest('GET', PATHS.vault),
    list: () => stripe.rawRequest('GET', PATHS.page),
    values: () => stripe.rawRequest('GET', PATHS.values),
    create: () => stripe.rawRequest('POST', PATHS.create, CREATE_PARAMS),
  };
}
