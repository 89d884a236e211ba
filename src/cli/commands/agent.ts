/**
 * `secrets-vault agent`: a caching proxy for the processes of one node (a Kubernetes DaemonSet
 * or sidecar, a VM's many jobs). Each job points its client or `run` at it instead of the
 * service, with no change of code; the values of a vault are then fetched once per token and
 * vault and `--ttl`, however many jobs start at once, and served stale while the service is
 * unavailable. It keeps nothing on disk and logs no token or value.
 */
import { parseDuration } from '../../core/env.js';
import { resolveClientOptions } from '../../core/options.js';
import { AgentServer } from '../agent/server.js';
import { Upstream } from '../agent/upstream.js';
import type { Command, Flag } from '../command.js';
import { CommandError, usageError } from '../errors.js';

const LISTEN: Flag = { name: 'listen', type: 'string' };
const TTL: Flag = { name: 'ttl', type: 'string' };
const STALE_IF_ERROR: Flag = { name: 'stale-if-error', type: 'string' };

const DEFAULT_HOST = '127.0.0.1';
const DEFAULT_PORT = 8210;
const DEFAULT_TTL_MS = 60_000;
const DEFAULT_STALE_IF_ERROR_MS = 3_600_000;
// After SIGTERM, the requests under way get as long as one exchange with the service may take,
// and this much more to write their answers; then their connections are cut.
const GRACE_MARGIN_MS = 1_000;

// The agent forwards each caller's own token and holds none: the client's settings are read for
// the base URL and the timeout only, with a stand-in token so that none is required.
const NO_TOKEN = 'agent-holds-no-token';

/** @internal `secrets-vault agent [--listen <host:port>] [--ttl D] [--stale-if-error D]`. */
export const agentCommand: Command = {
  name: 'agent',
  summary: "serve this node's jobs as a caching proxy of the service until stopped",
  synopsis: ['[--listen <host:port>] [--ttl D] [--stale-if-error D]'],
  usage: `Usage: secrets-vault agent [--listen <host:port>] [--ttl D] [--stale-if-error D]
`,
  description: `A caching proxy of the service (SECRETS_VAULT_BASE_URL) for the jobs of one node,
until SIGINT or SIGTERM (then it lets the requests under way finish and exits 0).
Its first line on stdout is SECRETS_VAULT_BASE_URL=http://<host>:<port>: give it
to a client or to secrets-vault run instead of the service's.

The values of a vault (GET /v1/vaults/<id>/secrets/values) are kept in memory
per token and vault for --ttl, and callers that miss the same entry at once
share one request to the service; answers say x-secrets-vault-agent: hit, miss
or stale. An entry is served only to the token the service answered it for;
401, 403 or 404 drops it. While the service is unavailable (no answer, a
timeout, 408, 429, 5xx), an entry up to --stale-if-error old is served as stale.
Every other request is forwarded as it came, uncached. Nothing is written to
disk, and no token or value to the log (one line on stderr when the service
becomes unavailable, one when it is back).
`,
  flags: [
    {
      flag: LISTEN,
      help: `  --listen <host:port>  where to listen (default: ${DEFAULT_HOST}:${DEFAULT_PORT}; port 0
                        picks a free one). Anyone who can reach it with a valid
                        token can use it: keep it on loopback or a guarded network
`,
    },
    {
      flag: TTL,
      help: `  --ttl <duration>      how long values are served without asking the service:
                        30s, 5m, or milliseconds; 0 to always ask (default: 60s)
`,
    },
    {
      flag: STALE_IF_ERROR,
      help: `  --stale-if-error <duration>
                        how old values may be and still be served while the service
                        is unavailable (default: 1h; 0 for never)
`,
    },
  ],
  async action(context) {
    const { host, port } = readListen(context.string(LISTEN));
    const ttlMs = readDuration(context.string(TTL), TTL, DEFAULT_TTL_MS);
    const staleIfErrorMs = readDuration(
      context.string(STALE_IF_ERROR),
      STALE_IF_ERROR,
      DEFAULT_STALE_IF_ERROR_MS,
    );
    // The base URL and the timeout are checked as every command checks them.
    const { apiRoot, timeout } = resolveClientOptions({ token: NO_TOKEN });
    const baseUrl = apiRoot.replace(/\/v1$/, '');
    const upstream = new Upstream(baseUrl, timeout);
    const server = new AgentServer({
      upstream,
      ttlMs,
      staleIfErrorMs,
      log: (line) => process.stderr.write(line),
    });
    const stopped = untilStopped(() => server.close(timeout + GRACE_MARGIN_MS));
    let address: { address: string; port: number };
    try {
      address = await server.listen(host, port);
    } catch (error) {
      stopped.cancel();
      upstream.close();
      const { code, message } = error as NodeJS.ErrnoException;
      throw new CommandError(`cannot listen on ${host} port ${port}: ${code ?? message}`, 1);
    }
    process.stdout.write(
      `SECRETS_VAULT_BASE_URL=http://${urlHost(address.address)}:${address.port}\n`,
    );
    return stopped.exitCode;
  },
};

/** Resolves to 0 once SIGINT or SIGTERM has come and the server is closed; `cancel` stops listening for them. */
function untilStopped(close: () => Promise<void>): {
  exitCode: Promise<number>;
  cancel: () => void;
} {
  let stop = () => {};
  const exitCode = new Promise<number>((resolve, reject) => {
    stop = () => {
      process.off('SIGINT', stop).off('SIGTERM', stop);
      close().then(() => resolve(0), reject);
    };
    process.on('SIGINT', stop).on('SIGTERM', stop);
  });
  return { exitCode, cancel: () => process.off('SIGINT', stop).off('SIGTERM', stop) };
}

/** `host:port` (`[::1]:8210` for IPv6); the default when not given. */
function readListen(text: string | undefined): { host: string; port: number } {
  if (text === undefined) return { host: DEFAULT_HOST, port: DEFAULT_PORT };
  const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([^\s:[\]/]+)):(\d{1,5})$/.exec(text);
  const port = Number(match?.[3]);
  const host = match?.[1] ?? match?.[2];
  if (host === undefined || !(port >= 0 && port <= 65535)) {
    throw usageError(
      '--listen takes <host>:<port>, such as 127.0.0.1:8210 or [::1]:0 (port 0 picks a free one)',
      'agent',
    );
  }
  return { host, port };
}

/** A duration flag's value in milliseconds: finite, 0 or more; `fallback` when not given. */
function readDuration(text: string | undefined, flag: Flag, fallback: number): number {
  if (text === undefined) return fallback;
  const ms = parseDuration(text);
  if (ms === undefined || !Number.isFinite(ms)) {
    throw usageError(
      `--${flag.name} takes a duration such as 30s, 5m, 1h, or milliseconds`,
      'agent',
    );
  }
  return ms;
}

/** An address as a URL writes it: an IPv6 literal in brackets. */
function urlHost(address: string): string {
  return address.includes(':') ? `[${address}]` : address;
}
