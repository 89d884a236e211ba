/**
 * `secrets-vault mock`: the package's stateful mock served over HTTP on loopback, for a shell
 * script or a job in another language to test against. It needs `msw`, an optional peer
 * dependency, so the mock is imported only when this command runs: every other command works
 * without it.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { SecretsVault } from '../../client.js';
import { escapeControlCharacters } from '../../core/redaction.js';
import type { Command, Flag } from '../command.js';
import { CommandError, usageError } from '../errors.js';

const PORT: Flag = { name: 'port', type: 'string' };
const HOST: Flag = { name: 'host', type: 'string' };
const SEED: Flag = { name: 'seed', type: 'string' };

// By the package's own name, and through a variable so that the build leaves the import as it
// is: bundled into the command, the mock's static import of `msw` would become the command's
// own, and no command would start without it.
const MOCK_MODULE: string = '@secrets-vault/sdk/mock';
const MOCK_NODE_MODULE: string = '@secrets-vault/sdk/mock/node';

/** What a seed file describes: vaults by name, each with its secrets' values. */
interface Seed {
  readonly vaults: readonly SeedVault[];
  /** Where the mock's ids are derived from: the number given, or the file's bytes. */
  readonly idSeed: number;
}
interface SeedVault {
  readonly name: string;
  readonly secrets: Readonly<Record<string, Readonly<Record<string, string>>>>;
}

/** @internal `secrets-vault mock [--port N] [--host H] [--seed <n|file.json>]`. */
export const mockCommand: Command = {
  name: 'mock',
  summary: "serve the package's mock on loopback until stopped (needs msw)",
  synopsis: ['[--port N] [--host H] [--seed <n|file.json>]'],
  usage: `Usage: secrets-vault mock [--port N] [--host H] [--seed <n|file.json>]
`,
  description: `Serves the package's stateful mock over HTTP until SIGINT or SIGTERM (then exits 0).
Its first lines on stdout are dotenv lines for the client and the command:
SECRETS_VAULT_BASE_URL=<url> and SECRETS_VAULT_TOKEN=<the owner's token>, then
VAULT_<NAME>=<id> for each seeded vault (its name upper-cased, every run of other
characters than letters and digits made _), then SECRETS_VAULT_TOKEN_<PRINCIPAL>=<token>
for each of the mock's principals (OWNER, ADMIN, MEMBER, OUTSIDER, COLLEAGUE),
and last SECRETS_VAULT_MOCK_CONTROL=<url>. The mock's tokens are public: it listens
on loopback only. It needs the msw package (npm install --save-dev msw).

The control URL carries a random token; with it, a test suite in any language
steers the mock with JSON: POST <url>/faults {"method"?, "path", "times"?, "fault"}
answers {"id"} (DELETE <url>/faults/<id> ends it), POST <url>/clock {"advanceMs": n}
moves the mock's clock, POST <url>/reset brings back the seeded state and its ids.

--seed <n> (an integer) makes the ids the same on every start. --seed <file.json>
also does (from the file's bytes), and creates vaults and their secrets, as the
owner, before anything is printed (write ./7 for a file named 7):
  { "vaults": [ { "name": "app", "secrets": { "database": { "url": "..." } } } ] }
`,
  flags: [
    {
      flag: PORT,
      help: '  --port <N>            the port (default: 8200); 0 picks a free one\n',
    },
    {
      flag: HOST,
      help: '  --host <H>            a loopback address (default: 127.0.0.1; or ::1, localhost)\n',
    },
    {
      flag: SEED,
      help: '  --seed <n|file.json>  the same ids on every start; a file adds vaults and secrets\n',
    },
  ],
  async action(context) {
    const port = readPort(context.string(PORT));
    const host = context.string(HOST) ?? '127.0.0.1';
    if (host === '') throw usageError('--host takes an address', 'mock');
    const seed = readSeedFlag(context.string(SEED));

    // One after the other: the mock first, so that a missing msw is what gets reported.
    const { createVaultMock } = await importMock<typeof import('../../mock/index.js')>(MOCK_MODULE);
    const { serveVaultMock } =
      await importMock<typeof import('../../mock/node.js')>(MOCK_NODE_MODULE);
    // Without --seed the seed is random: other ids on each start, the same ones after a reset.
    const mock = createVaultMock({ seed: seed.idSeed });
    const token = mock.principals.owner.token;
    let served: Awaited<ReturnType<typeof serveVaultMock>>;
    try {
      served = await serveVaultMock(mock, {
        host,
        port,
        // The same requests in the same order, from the same seed: the same ids again.
        control: { onReset: async () => void (await createSeed(seed, served.url, token)) },
      });
    } catch (error) {
      throw listenError(error, host, port);
    }
    const stopped = untilStopped(served.close);
    try {
      const vaultIds = await createSeed(seed, served.url, token);
      const lines = [
        `SECRETS_VAULT_BASE_URL=${served.url}`,
        `SECRETS_VAULT_TOKEN=${token}`,
        ...vaultIds.map(([variable, id]) => `${variable}=${id}`),
        ...Object.entries(mock.principals).map(
          ([name, principal]) =>
            `SECRETS_VAULT_TOKEN_${principalVariable(name)}=${principal.token}`,
        ),
        `SECRETS_VAULT_MOCK_CONTROL=${served.controlUrl}`,
      ];
      process.stdout.write(`${lines.join('\n')}\n`);
    } catch (error) {
      await served.close();
      throw error;
    }
    return stopped;
  },
};

/** Resolves to 0 once SIGINT or SIGTERM has come and the server is closed. */
function untilStopped(close: () => Promise<void>): Promise<number> {
  return new Promise((resolve, reject) => {
    const stop = () => {
      process.off('SIGINT', stop).off('SIGTERM', stop);
      close().then(() => resolve(0), reject);
    };
    process.on('SIGINT', stop).on('SIGTERM', stop);
  });
}

function readPort(text: string | undefined): number {
  if (text === undefined) return 8200;
  const port = /^\d{1,5}$/.test(text) ? Number(text) : Number.NaN;
  if (!(port >= 0 && port <= 65535)) {
    throw usageError('--port takes a port number from 0 to 65535 (0 picks a free one)', 'mock');
  }
  return port;
}

/**
 * Imports a module of the package's mock, saying what to install when `msw` is missing.
 *
 * @throws {CommandError} when the module or `msw` cannot be loaded
 */
async function importMock<Module>(specifier: string): Promise<Module> {
  try {
    return (await import(specifier)) as Module;
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    if (code === 'ERR_MODULE_NOT_FOUND' && /['"]msw['"/]/.test(message)) {
      throw new CommandError(
        'secrets-vault mock needs the msw package: npm install --save-dev msw',
        1,
      );
    }
    throw new CommandError(`cannot load ${specifier}: ${code ?? String(error)}`, 1);
  }
}

/** The error to report for a server that did not start, in the words of a shell user. */
function listenError(error: unknown, host: string, port: number): CommandError {
  const { code, message } = error as NodeJS.ErrnoException;
  if (typeof message === 'string' && message.includes('not a loopback address')) {
    // The mock guards nothing (its tokens are public and fixed): the command never exposes it.
    return usageError(
      `--host must be a loopback address (127.0.0.1, ::1 or localhost): the mock's tokens are public`,
      'mock',
    );
  }
  return new CommandError(`cannot listen on ${host} port ${port}: ${code ?? message}`, 1);
}

/**
 * `adminKey` as `ADMIN`: a principal's name as MockPrincipals spells it, upper-cased, words
 * joined by `_`, without the `Key` that marks an API key (its token is the key).
 */
function principalVariable(name: string): string {
  return name
    .replace(/Key$/, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toUpperCase();
}

// The largest seed a number may be: what the mock takes (2^53 - 1), in at most 16 digits.
const MAX_SEED = Number.MAX_SAFE_INTEGER;

/**
 * What `--seed` says: an integer (the ids' seed, no vaults), a seed file (its vaults, and the
 * ids' seed from its bytes), or nothing (no vaults, and a seed at random).
 *
 * @throws {CommandError} for an empty value or a seed file that cannot be used
 */
function readSeedFlag(value: string | undefined): Seed {
  if (value === undefined) return { vaults: [], idSeed: randomBytes(6).readUIntBE(0, 6) };
  if (/^\d+$/.test(value)) {
    const idSeed = value.length <= 16 ? Number(value) : Number.NaN;
    if (!(idSeed <= MAX_SEED)) {
      throw usageError(`--seed takes an integer from 0 to ${MAX_SEED}, or a file`, 'mock');
    }
    return { vaults: [], idSeed };
  }
  return readSeed(value);
}

/**
 * Reads and checks a seed file. Its problems are named by where they are in the file, never by
 * a value: the values are secrets.
 *
 * @throws {CommandError} naming the file and the problem
 */
function readSeed(file: string): Seed {
  if (file === '') throw usageError('--seed takes an integer or a file', 'mock');
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    throw new CommandError(
      `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`,
      1,
    );
  }
  const text = bytes.toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // The parser's message quotes the text around the mistake, which may be a value.
    throw new CommandError(`${file} is not valid JSON`, 1);
  }
  const invalid = (problem: string) => new CommandError(`${file}: ${problem}`, 1);
  if (!isObject(parsed) || !Array.isArray(parsed.vaults)) {
    throw invalid('expected { "vaults": [ { "name": ..., "secrets": { ... } } ] }');
  }
  const variables = new Map<string, number>();
  const vaults = parsed.vaults.map((vault: unknown, index: number): SeedVault => {
    const at = `vaults[${index}]`;
    if (!isObject(vault)) throw invalid(`${at} must be an object`);
    if (typeof vault.name !== 'string' || vault.name === '') {
      throw invalid(`${at}.name must be a non-empty string`);
    }
    const variable = vaultVariable(vault.name);
    const earlier = variables.get(variable);
    if (earlier !== undefined) {
      throw invalid(`vaults[${earlier}] and ${at} would both be printed as ${variable}`);
    }
    variables.set(variable, index);
    const secrets = vault.secrets ?? {};
    if (!isObject(secrets)) throw invalid(`${at}.secrets must be an object`);
    for (const [name, value] of Object.entries(secrets)) {
      // Names and keys are not secret (`ls` prints them), but they are printed as inert text.
      const where = `${at}.secrets[${quoted(name)}]`;
      if (name === '') throw invalid(`${at}.secrets has a secret with an empty name`);
      if (!isObject(value)) throw invalid(`${where} must be an object of keys to string values`);
      for (const [key, item] of Object.entries(value)) {
        if (typeof item !== 'string') {
          throw invalid(`${where}[${quoted(key)}] must be a string`);
        }
      }
    }
    return {
      name: vault.name,
      secrets: secrets as Readonly<Record<string, Readonly<Record<string, string>>>>,
    };
  });
  // 48 bits of the file's digest: the same file, the same ids.
  return { vaults, idSeed: createHash('sha256').update(bytes).digest().readUIntBE(0, 6) };
}

/** A name or key as JSON writes it, with every control character escaped: one inert line. */
function quoted(text: string): string {
  return escapeControlCharacters(JSON.stringify(text));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `VAULT_<NAME>`: the name upper-cased, each run of other characters than A-Z and 0-9 as `_`. */
function vaultVariable(name: string): string {
  return `VAULT_${name.toUpperCase().replace(/[^A-Z0-9]+/g, '_')}`;
}

/**
 * Creates the seed's vaults and secrets through the served mock, as its owner would with the
 * client, and resolves to each vault's variable and id, in the file's order.
 */
async function createSeed(
  seed: Pick<Seed, 'vaults'>,
  baseUrl: string,
  token: string,
): Promise<Array<readonly [string, string]>> {
  if (seed.vaults.length === 0) return [];
  const client = new SecretsVault({ baseUrl, token, logLevel: 'off' });
  const created: Array<readonly [string, string]> = [];
  for (const { name, secrets } of seed.vaults) {
    const vault = await client.vaults.create({ name });
    for (const [secretName, value] of Object.entries(secrets)) {
      await client.secrets.create(vault.id, { name: secretName, value });
    }
    created.push([vaultVariable(name), vault.id]);
  }
  return created;
}
