/**
 * With NODE_USE_ENV_PROXY=1, a request goes through the environment's proxy or direct exactly
 * where Node's own fetch would send it, whichever transport sends it: fetch is the reference, and
 * node:http must agree with it on every setting of HTTP_PROXY, http_proxy, HTTPS_PROXY, NO_PROXY
 * and no_proxy, whose readings by Node's http agent and by fetch differ. Each setting runs in a
 * child process per transport (the variables are read as the process starts), against a target
 * and a proxy of its own on loopback that tell which of them the request reached.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeServers, sendJson, success, vaultData } from './scripted-server.js';

type Transport = 'fetch' | 'http';
type Route = 'direct' | 'proxy';

// The child makes one call with the transport it is told to use. No name under `.localhost`
// resolves on every machine (RFC 6761 reserves them for loopback; some resolvers ask a DNS
// server anyway): the child answers those lookups itself, so nothing but loopback is contacted.
const childProgram = `
import dns from 'node:dns';
import { SecretsVault } from ${JSON.stringify(fileURLToPath(new URL('../../src/index.ts', import.meta.url)))};

const lookup = dns.lookup;
dns.lookup = function (hostname, options, callback) {
  return lookup.call(this, /\\.localhost\\.?$/i.test(hostname) ? '127.0.0.1' : hostname, options, callback);
};
const client = new SecretsVault({ baseUrl: process.argv[2], token: 'sv_proxy_parity', maxRetries: 0, timeout: 5000 });
try {
  console.log((await client.vaults.get('vlt_1')).name);
} catch (error) {
  console.log(error.name);
}
`;

/** A target and a proxy for one transport's child: each records what reached it. */
interface Endpoints {
  readonly targetPort: number;
  readonly proxyUrl: string;
  /** Connections the target accepted: a request that went direct. */
  targetConnections: number;
  /** What the proxy was asked for: `GET <absolute URL>` or `CONNECT <host:port>`. */
  readonly proxied: string[];
}

const servers: Server[] = [];
const endpoints = {} as Record<Transport, Endpoints>;
let directory = '';
let program = '';
let closedPort = 0;

async function listen(server: Server): Promise<number> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

async function startEndpoints(): Promise<Endpoints> {
  const target = createServer((_request, response) =>
    sendJson(response, 200, success({ ...vaultData(), name: 'direct' })),
  );
  const proxy = createServer((request, response) => {
    // A forward proxy gets the absolute URI; this one answers by itself, reaching nothing.
    if (request.url?.startsWith('/') !== true) {
      ends.proxied.push(`${request.method} ${request.url}`);
    }
    sendJson(response, 200, success({ ...vaultData(), name: 'proxy' }));
  });
  // fetch asks for a tunnel even to an http target: the proxy opens it to itself and answers
  // what comes through (a TLS handshake for an https target, which then fails: it is enough
  // that the proxy was asked).
  proxy.on('connect', (request: IncomingMessage, socket: Socket, head: Buffer) => {
    ends.proxied.push(`CONNECT ${request.url}`);
    socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length > 0) socket.unshift(head);
    proxy.emit('connection', socket);
  });
  target.on('connection', () => {
    ends.targetConnections += 1;
  });
  const [targetPort, proxyPort] = await Promise.all([listen(target), listen(proxy)]);
  const ends: Endpoints = {
    targetPort,
    proxyUrl: `http://127.0.0.1:${proxyPort}`,
    targetConnections: 0,
    proxied: [],
  };
  return ends;
}

beforeAll(async () => {
  const bundle = await build({
    stdin: { contents: childProgram, resolveDir: process.cwd(), loader: 'ts' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    write: false,
    logLevel: 'silent',
  });
  directory = await mkdtemp(join(tmpdir(), 'sdk-proxy-parity-'));
  program = join(directory, 'child.mjs');
  await writeFile(program, bundle.outputFiles[0]?.text ?? '');
  endpoints.fetch = await startEndpoints();
  endpoints.http = await startEndpoints();
  const closed = createServer();
  closedPort = await listen(closed);
  servers.pop();
  await new Promise((resolve) => closed.close(resolve));
});

afterAll(async () => {
  await closeServers(servers);
  await rm(directory, { recursive: true, force: true });
});

// Variables of the test's own environment that would change where the child sends.
const INHERITED = [
  'NODE_OPTIONS',
  'NODE_USE_ENV_PROXY',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
  'http_proxy',
  'https_proxy',
  'no_proxy',
  'SECRETS_VAULT_TRANSPORT',
];

/** The ports and the proxy one child sees, for a setting to name. */
interface Place {
  /** The target's port. */
  readonly port: number;
  /** A loopback port nothing listens on. */
  readonly closedPort: number;
  readonly proxy: string;
}

/** Runs one child with `transport` against `url` and tells where its request went. */
async function routeOf(
  transport: Transport,
  scheme: 'http' | 'https',
  host: string,
  env: (place: Place) => Record<string, string>,
): Promise<{ route: Route | 'unclear'; said: string }> {
  const ends = endpoints[transport];
  ends.targetConnections = 0;
  ends.proxied.length = 0;
  const place = { port: ends.targetPort, closedPort, proxy: ends.proxyUrl };
  const base: Record<string, string | undefined> = { ...process.env };
  for (const name of INHERITED) delete base[name];
  const child = spawn(process.execPath, [program, `${scheme}://${host}:${place.port}`], {
    env: { ...base, NODE_USE_ENV_PROXY: '1', SECRETS_VAULT_TRANSPORT: transport, ...env(place) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let said = '';
  child.stdout.on('data', (chunk: Buffer) => {
    said += chunk;
  });
  child.stderr.on('data', (chunk: Buffer) => {
    said += chunk;
  });
  const watchdog = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await new Promise((resolve) => child.once('close', resolve));
  clearTimeout(watchdog);
  const direct = ends.targetConnections > 0;
  const proxied = ends.proxied.some((line) => line.includes(`:${place.port}`));
  return { route: direct === proxied ? 'unclear' : direct ? 'direct' : 'proxy', said };
}

interface Setting {
  readonly name: string;
  readonly scheme?: 'http' | 'https';
  readonly host: string;
  readonly env: (place: Place) => Record<string, string>;
  /** Where Node 24's fetch sends it. */
  readonly fetch: Route;
}

const SETTINGS: readonly Setting[] = [
  {
    name: 'NO_PROXY=*.localhost, to localhost',
    host: 'localhost',
    env: ({ proxy }) => ({ HTTP_PROXY: proxy, NO_PROXY: '*.localhost' }),
    fetch: 'direct',
  },
  {
    name: 'NO_PROXY=*.localhost, to foo.localhost',
    host: 'foo.localhost',
    env: ({ proxy }) => ({ HTTP_PROXY: proxy, NO_PROXY: '*.localhost' }),
    fetch: 'direct',
  },
  {
    name: 'NO_PROXY=*.localhost, to 127.0.0.1',
    host: '127.0.0.1',
    env: ({ proxy }) => ({ HTTP_PROXY: proxy, NO_PROXY: '*.localhost' }),
    fetch: 'proxy',
  },
  {
    name: 'NO_PROXY=.localhost, to localhost',
    host: 'localhost',
    env: ({ proxy }) => ({ HTTP_PROXY: proxy, NO_PROXY: '.localhost' }),
    fetch: 'direct',
  },
  {
    name: 'NO_PROXY=.localhost, to foo.localhost',
    host: 'foo.localhost',
    env: ({ proxy }) => ({ HTTP_PROXY: proxy, NO_PROXY: '.localhost' }),
    fetch: 'direct',
  },
  {
    name: 'NO_PROXY=localhost, to localhost',
    host: 'localhost',
    env: ({ proxy }) => ({ HTTP_PROXY: proxy, NO_PROXY: 'localhost' }),
    fetch: 'direct',
  },
  {
    name: 'NO_PROXY=localhost, to foo.localhost',
    host: 'foo.localhost',
    env: ({ proxy }) => ({ HTTP_PROXY: proxy, NO_PROXY: 'localhost' }),
    fetch: 'direct',
  },
  {
    name: 'NO_PROXY=127.0.0.1, to 127.0.0.1',
    host: '127.0.0.1',
    env: ({ proxy }) => ({ HTTP_PROXY: proxy, NO_PROXY: '127.0.0.1' }),
    fetch: 'direct',
  },
  {
    name: 'NO_PROXY=*, to 127.0.0.1',
    host: '127.0.0.1',
    env: ({ proxy }) => ({ HTTP_PROXY: proxy, NO_PROXY: '*' }),
    fetch: 'direct',
  },
  {
    name: 'NO_PROXY=localhost,* (a * among others), to 127.0.0.1',
    host: '127.0.0.1',
    env: ({ proxy }) => ({ HTTP_PROXY: proxy, NO_PROXY: 'localhost,*' }),
    fetch: 'proxy',
  },
  {
    name: 'NO_PROXY=localhost:<the port>, to localhost',
    host: 'localhost',
    env: ({ proxy, port }) => ({ HTTP_PROXY: proxy, NO_PROXY: `localhost:${port}` }),
    fetch: 'direct',
  },
  {
    name: 'NO_PROXY=localhost:<another port>, to localhost',
    host: 'localhost',
    env: ({ proxy, closedPort }) => ({ HTTP_PROXY: proxy, NO_PROXY: `localhost:${closedPort}` }),
    fetch: 'proxy',
  },
  {
    name: 'NO_PROXY=.localhost:<the port>, to foo.localhost',
    host: 'foo.localhost',
    env: ({ proxy, port }) => ({ HTTP_PROXY: proxy, NO_PROXY: `.localhost:${port}` }),
    fetch: 'direct',
  },
  {
    name: 'NO_PROXY=*.LocalHost (mixed case), to foo.localhost',
    host: 'foo.localhost',
    env: ({ proxy }) => ({ HTTP_PROXY: proxy, NO_PROXY: '*.LocalHost' }),
    fetch: 'direct',
  },
  {
    name: 'NO_PROXY with spaces between entries, to localhost',
    host: 'localhost',
    env: ({ proxy }) => ({ HTTP_PROXY: proxy, NO_PROXY: 'internal.example localhost' }),
    fetch: 'direct',
  },
  {
    name: 'NO_PROXY with an address range, to 127.0.0.1',
    host: '127.0.0.1',
    env: ({ proxy }) => ({ HTTP_PROXY: proxy, NO_PROXY: '127.0.0.0-127.0.0.255' }),
    fetch: 'proxy',
  },
  {
    name: 'HTTP_PROXY set and http_proxy empty',
    host: '127.0.0.1',
    env: ({ proxy }) => ({ HTTP_PROXY: proxy, http_proxy: '' }),
    fetch: 'direct',
  },
  {
    name: 'http_proxy set and HTTP_PROXY another (refusing) proxy',
    host: '127.0.0.1',
    env: ({ proxy, closedPort }) => ({
      http_proxy: proxy,
      HTTP_PROXY: `http://127.0.0.1:${closedPort}`,
    }),
    fetch: 'proxy',
  },
  {
    name: 'no_proxy empty and NO_PROXY naming the host',
    host: '127.0.0.1',
    env: ({ proxy }) => ({ HTTP_PROXY: proxy, no_proxy: '', NO_PROXY: '127.0.0.1' }),
    fetch: 'proxy',
  },
  {
    name: 'no_proxy naming the host and NO_PROXY another',
    host: '127.0.0.1',
    env: ({ proxy }) => ({ HTTP_PROXY: proxy, no_proxy: '127.0.0.1', NO_PROXY: 'other.example' }),
    fetch: 'direct',
  },
  {
    name: 'no_proxy naming another host and NO_PROXY the host',
    host: '127.0.0.1',
    env: ({ proxy }) => ({ HTTP_PROXY: proxy, no_proxy: 'other.example', NO_PROXY: '127.0.0.1' }),
    fetch: 'proxy',
  },
  {
    name: 'https with HTTP_PROXY only',
    scheme: 'https',
    host: '127.0.0.1',
    env: ({ proxy }) => ({ HTTP_PROXY: proxy }),
    fetch: 'proxy',
  },
  {
    name: 'https with HTTPS_PROXY set and https_proxy empty',
    scheme: 'https',
    host: '127.0.0.1',
    env: ({ proxy }) => ({ HTTPS_PROXY: proxy, https_proxy: '' }),
    fetch: 'direct',
  },
];

// The child picks its own transport: the run with SECRETS_VAULT_TRANSPORT=fetch would repeat it.
describe.skipIf(process.env.SECRETS_VAULT_TRANSPORT === 'fetch')(
  "the environment's proxy with NODE_USE_ENV_PROXY=1",
  () => {
    it.each(SETTINGS)(
      'node:http goes where fetch goes: $name',
      async ({ scheme = 'http', host, env, fetch }) => {
        const [viaFetch, viaHttp] = await Promise.all([
          routeOf('fetch', scheme, host, env),
          routeOf('http', scheme, host, env),
        ]);
        expect(viaFetch.route, viaFetch.said).toBe(fetch);
        expect(viaHttp.route, viaHttp.said).toBe(viaFetch.route);
      },
      30_000,
    );
  },
);
