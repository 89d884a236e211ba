/**
 * Which headers the agent passes on, in either direction. A proxy forwards the end-to-end headers
 * of a message and drops the hop-by-hop ones (RFC 9110 §7.6.1): they describe one connection,
 * and a value passed on to the next one could make it frame or route the message otherwise.
 */

// The hop-by-hop headers, `proxy-*` among them, and the ones the agent sets itself for the next
// hop: `host` (the service's), `content-length` (of the body as the agent sends it) and `expect`
// (the agent has read the whole body before it sends anything).
const NOT_FORWARDED =
  /^(?:connection|keep-alive|transfer-encoding|upgrade|te|trailer|proxy-.*|host|content-length|expect)$/i;

/**
 * @internal The end-to-end headers of `rawHeaders` (Node's flat list of names and values, every
 * repeat kept), as a flat list: without the hop-by-hop headers nor those the `Connection` header
 * names as hop-by-hop for this message.
 */
export function endToEndHeaders(rawHeaders: readonly string[]): string[] {
  const named = new Set<string>();
  for (let index = 0; index + 1 < rawHeaders.length; index += 2) {
    if ((rawHeaders[index] as string).toLowerCase() !== 'connection') continue;
    for (const token of (rawHeaders[index + 1] as string).split(',')) {
      named.add(token.trim().toLowerCase());
    }
  }
  const kept: string[] = [];
  for (let index = 0; index + 1 < rawHeaders.length; index += 2) {
    const name = rawHeaders[index] as string;
    if (NOT_FORWARDED.test(name) || named.has(name.toLowerCase())) continue;
    kept.push(name, rawHeaders[index + 1] as string);
  }
  return kept;
}

/** @internal The first value of the header `name` (any case) in a flat list; undefined when absent. */
export function headerOf(headers: readonly string[], name: string): string | undefined {
  for (let index = 0; index + 1 < headers.length; index += 2) {
    if ((headers[index] as string).toLowerCase() === name) return headers[index + 1];
  }
  return undefined;
}

/** @internal A flat list without the header `name` (any case). */
export function withoutHeader(headers: readonly string[], name: string): string[] {
  const kept: string[] = [];
  for (let index = 0; index + 1 < headers.length; index += 2) {
    if ((headers[index] as string).toLowerCase() !== name) {
      kept.push(headers[index] as string, headers[index + 1] as string);
    }
  }
  return kept;
}
