/**
 * What a peer module gives the harness: the four requests of `PATHS` (bench/fixtures.ts), made
 * the peer's own way. Each resolves to the response's body, parsed, as the peer's user gets it.
 */
export interface Calls {
  readonly get: () => Promise<unknown>;
  readonly list: () => Promise<unknown>;
  readonly values: () => Promise<unknown>;
  readonly create: () => Promise<unknown>;
}
