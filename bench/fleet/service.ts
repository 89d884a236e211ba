/**
 * The fleet benchmark's service, one child process forked by run.ts: the package's mock served
 * over HTTP on 127.0.0.1, seeded with one vault of a few secrets, and in front of it a fault
 * proxy (node:http, also on 127.0.0.1) that the jobs talk to. The proxy is what makes a
 * scenario: an outage that resets every connection (once, or flapping: down and up in turns),
 * random 503s (throughout, or a brownout for a while), a capacity-limited service that sheds
 * with 429 and Retry-After (overload, and the lockstep trap), or a refused token. It counts
 * every request that reaches it, so "requests per job" is what the service saw, not what the
 * client believes it sent, and times every attempt (request or reset connection), and it
 * tells which sender sent each request (the SDK's node:http one or a `fetch`), so the report
 * shows the transport that was measured, not the one meant.
 *
 * It reports its URLs, the vault id and the token over IPC ({@link ServiceReady}), takes a new
 * configuration per scenario ({@link ConfigureMessage}) and answers count requests; it exits
 * when the harness disconnects.
 */
import { randomUUID } from 'node:crypto';
import {
  Agent,
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type ServerResponse,
} from 'node:http';
import { type AddressInfo, createServer as createNetServer } from 'node:net';
import { SecretsVault } from '@secrets-vault/sdk';
import { createVaultMock } from '@secrets-vault/sdk/mock';
import { serveVaultMock } from '@secrets-vault/sdk/mock/node';
import {
  type ConfigureMessage,
  epochNow,
  type Fault,
  type ProxyCounts,
  type RotateRequest,
  type Sender,
  type ServiceReady,
  type ServiceReply,
  type StatsRequest,
  watchStalls,
} from './protocol.ts';

const JOB_HEADER = 'x-fleet-job';
// A job that cannot send a header of ours (the command) names itself in its base URL instead:
// `<proxy>/fleet-job/<id>`; the proxy takes the prefix off before forwarding.
const JOB_PREFIX = /^\/fleet-job\/([^/]+)(?=\/)/;
// Node's fetch adds this header to every request; the SDK's node:http sender never sends it.
const FETCH_HEADER = 'sec-fetch-mode';
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
]);

// --- The mock, seeded as an operator would -------------------------------------------------

const mock = createVaultMock();
const served = await serveVaultMock(mock);
const upstream = new URL(served.url);
const token = mock.principals.owner.token;
const operator = new SecretsVault({ baseUrl: served.url, token });
const vault = await operator.vaults.create({ name: 'fleet-startup' });
const SEEDS = [
  {
    name: 'database',
    type: 'login',
    value: { host: 'db.internal', username: 'app', password: 'p' },
  },
  { name: 'stripe', type: 'api_key', value: { api_key: 'sk_test_fleet_not_real' } },
  { name: 'session', value: { signing_key: 'fleet-signing-key-not-real' } },
  { name: 'smtp', value: { host: 'smtp.internal', password: 'fleet-smtp-not-real' } },
  { name: 'feature-flags', value: { token: 'fleet-flags-not-real' } },
];
const secretIds = new Map<string, string>();
for (const seed of SEEDS) {
  const created = await operator.secrets.create(vault.id, seed);
  secretIds.set(seed.name, created.id);
}

// --- The fault proxy ------------------------------------------------------------------------

let fault: Fault = { kind: 'none' };
let startAt = epochNow();
/** Per scenario: ms since the start instant, and the job id (null for a refused connection). */
let requestTimes: number[] = [];
let refusedTimes: number[] = [];
let perJob: Record<string, number> = {};
let timeline: [number, string][] = [];
let senders: Record<Sender, number> = { 'node:http': 0, fetch: 0 };
let forwarded = 0;
let answered: Record<string, number> = {};
let inFlight = 0;
// How long the proxy's event loop is held up: attempts arriving meanwhile are stamped after it.
const loop = watchStalls();

const agent = new Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY });

/** Whether connections are reset at epoch instant `at`: during an outage or a down spell. */
function inOutage(at: number): boolean {
  const since = at - startAt;
  if (since < 0) return false;
  if (fault.kind === 'outage') return since < fault.seconds * 1000;
  if (fault.kind === 'flapping') {
    const period = (fault.downSeconds + fault.upSeconds) * 1000;
    return since < fault.cycles * period && since % period < fault.downSeconds * 1000;
  }
  return false;
}

/** Whether a brownout (random 503s) is on at epoch instant `at`; always, without `seconds`. */
function inBrownout(at: number): boolean {
  return (
    fault.kind === 'random503' &&
    (fault.seconds === undefined || at - startAt < fault.seconds * 1000)
  );
}

/** Answers with the service's failure envelope, as the real service would. */
function answer(
  response: ServerResponse,
  statusCode: number,
  errorCode: string,
  message: string,
  extra: OutgoingHttpHeaders = {},
): void {
  answered[statusCode] = (answered[statusCode] ?? 0) + 1;
  const body = JSON.stringify({ statusCode, errorCode, message, data: null });
  response.writeHead(statusCode, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
    'X-Request-Id': `req_${randomUUID()}`,
    ...extra,
  });
  response.end(body);
}

/** Passes a request on to the mock and its answer back; `done` runs once it is over. */
function forward(incoming: IncomingMessage, outgoing: ServerResponse, done = () => {}): void {
  forwarded += 1;
  const headers: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(incoming.headers)) {
    if (!HOP_BY_HOP.has(name) && value !== undefined) headers[name] = value;
  }
  headers.host = upstream.host;
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    done();
  };
  outgoing.once('close', finish);
  const proxied = httpRequest(
    {
      host: upstream.hostname,
      port: upstream.port,
      method: incoming.method,
      path: incoming.url,
      headers,
      agent,
    },
    (response) => {
      const back: OutgoingHttpHeaders = {};
      for (const [name, value] of Object.entries(response.headers)) {
        if (!HOP_BY_HOP.has(name) && value !== undefined) back[name] = value;
      }
      outgoing.writeHead(response.statusCode ?? 502, back);
      response.pipe(outgoing);
    },
  );
  proxied.once('error', () => {
    // The mock is on the same machine: this only happens when the client went away first.
    outgoing.destroy();
    finish();
  });
  incoming.pipe(proxied);
}

function handle(incoming: IncomingMessage, outgoing: ServerResponse): void {
  const instant = epochNow();
  // A connection made before the outage is reset at its next request: every connection is.
  if (inOutage(instant)) {
    refusedTimes.push(instant - startAt);
    incoming.socket.resetAndDestroy();
    return;
  }
  const at = instant - startAt;
  requestTimes.push(at);
  const prefixed = JOB_PREFIX.exec(incoming.url ?? '');
  if (prefixed) incoming.url = (incoming.url ?? '').slice(prefixed[0].length);
  const header = incoming.headers[JOB_HEADER];
  const job = prefixed?.[1] ?? (typeof header === 'string' ? header : undefined);
  if (job !== undefined) {
    perJob[job] = (perJob[job] ?? 0) + 1;
    timeline.push([at, job]);
  }
  senders[FETCH_HEADER in incoming.headers ? 'fetch' : 'node:http'] += 1;
  switch (fault.kind) {
    case 'random503':
      if (inBrownout(instant) && Math.random() < fault.rate) {
        incoming.resume();
        answer(outgoing, 503, 'unavailable', 'Service unavailable');
      } else forward(incoming, outgoing);
      return;
    case 'overload': {
      if (inFlight >= fault.capacity) {
        incoming.resume();
        answer(outgoing, 429, 'rate_limited', 'Too many requests', {
          'Retry-After': String(fault.retryAfter),
        });
        return;
      }
      inFlight += 1;
      const release = () => {
        inFlight -= 1;
      };
      const timer = setTimeout(() => {
        outgoing.off('close', early);
        if (outgoing.destroyed) release();
        else forward(incoming, outgoing, release);
      }, fault.serviceMs);
      // A client that gives up while its request is held frees the slot at once.
      const early = () => {
        clearTimeout(timer);
        release();
      };
      outgoing.once('close', early);
      return;
    }
    case 'unauthorized':
      incoming.resume();
      answer(outgoing, 401, 'unauthorized', 'Missing or invalid bearer token');
      return;
    default:
      // An outage only refuses connections; a request on a connection made before it passes.
      forward(incoming, outgoing);
  }
}

const http = createServer({ keepAliveTimeout: 60_000 }, handle);
// Connections are accepted here first, so an outage can reset them before any HTTP is read.
const tcp = createNetServer((socket) => {
  if (inOutage(epochNow())) {
    refusedTimes.push(epochNow() - startAt);
    socket.resetAndDestroy();
    return;
  }
  http.emit('connection', socket);
});
tcp.on('error', (error) => {
  console.error(`fleet proxy: ${error.message}`);
  process.exit(1);
});

/** The most of `times` in any window of `width` ms. */
function peakWindow(times: readonly number[], width = 1000): number {
  const sorted = [...times].sort((a, b) => a - b);
  let peak = 0;
  let low = 0;
  for (let high = 0; high < sorted.length; high += 1) {
    while ((sorted[high] ?? 0) - (sorted[low] ?? 0) >= width) low += 1;
    peak = Math.max(peak, high - low + 1);
  }
  return peak;
}

/** Attempts per 100 ms bucket from the start instant (any before it are left out). */
function perBucket(times: readonly number[], width = 100): number[] {
  const buckets: number[] = [];
  for (const at of times) {
    if (at < 0) continue;
    const index = Math.floor(at / width);
    while (buckets.length <= index) buckets.push(0);
    buckets[index] = (buckets[index] ?? 0) + 1;
  }
  return buckets;
}

function counts(): ProxyCounts {
  return {
    requests: requestTimes.length,
    refused: refusedTimes.length,
    forwarded,
    answered,
    senders,
    perJob,
    timeline,
    attemptsPer100Ms: perBucket([...requestTimes, ...refusedTimes]),
    peakRequestsPerSecond: peakWindow(requestTimes),
    peakAttemptsPerSecond: peakWindow([...requestTimes, ...refusedTimes]),
    maxLoopDelayMs: Math.max(0, ...loop.stalls().map(([, ms]) => ms)),
    stalls: loop.stalls(),
    // maxRSS is in kilobytes.
    maxRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
  };
}

function reply(message: ServiceReply): void {
  process.send?.(message);
}

process.on('message', (raw) => {
  const message = raw as ConfigureMessage | StatsRequest | RotateRequest;
  if (message.type === 'configure') {
    fault = message.fault;
    startAt = message.startAt;
    requestTimes = [];
    refusedTimes = [];
    perJob = {};
    timeline = [];
    senders = { 'node:http': 0, fetch: 0 };
    forwarded = 0;
    answered = {};
    loop.reset();
    // Connections of the previous scenario's clients carry nothing into this one.
    http.closeIdleConnections();
    reply({ type: 'configured' });
  } else if (message.type === 'stats') {
    reply({ type: 'stats', counts: counts() });
  } else if (message.type === 'rotate') {
    // Straight to the mock, as the owner: the rotation is not one of the fleet's requests.
    const secretId = secretIds.get(message.secret);
    if (secretId === undefined) throw new Error(`fleet service: no secret ${message.secret}`);
    operator.secrets.update(secretId, { value: message.value }).then(
      () => reply({ type: 'rotated' }),
      (error: unknown) => {
        console.error(`fleet service: the rotation failed: ${String(error)}`);
        process.exit(1);
      },
    );
  }
});

// A fleet of 2 000 connects at one instant: with Node's default backlog (511) the kernel's
// queue of unaccepted connections overflows, the SYNs it drops are sent again 1, 3, 7… s later,
// and those late arrivals make a herd of their own at the proxy. The kernel caps the backlog at
// net.core.somaxconn (4096 on the machine of the results).
tcp.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, () => {
  const { port } = tcp.address() as AddressInfo;
  const ready: ServiceReady = {
    type: 'ready',
    proxyUrl: `http://127.0.0.1:${port}`,
    upstreamUrl: served.url,
    vaultId: vault.id,
    token,
    secrets: SEEDS.length,
  };
  if (process.send) process.send(ready);
  else console.log(ready);
});
// Started by run.ts: stop with it, even if it dies without saying so.
process.on('disconnect', () => process.exit(0));
