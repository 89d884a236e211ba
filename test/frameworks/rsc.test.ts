/**
 * A page of a list passed from a React Server Component to a Client Component, through React's
 * own Flight serializer under the `react-server` export condition, as Next.js runs it.
 *
 * Before the fix a `Page` was async-iterable over every later page, so React walked the whole
 * list on the server (one request per page) and sent the client an iterator. Now React sends
 * the page's plain data, `{ data, nextCursor }`, and fetches nothing more; a promise of a page,
 * which React awaits and does not call `toJSON` on, fails the render clearly instead of walking.
 *
 * rsc-server.mjs renders every case against the stateful mock and counts the requests the mock
 * receives; rsc-client.mjs decodes the payloads with React's Flight client, in a process without
 * the condition. Both run in the production and the development builds of React.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { finished } from '../cli/harness.js';
import { packageAliases } from '../package-aliases.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const root = resolve(here, '../..');

/** The requests the first page of the list takes, and the only ones any case may make. */
const FIRST_PAGE = 'GET /v1/vaults?limit=3';
/** What React says when a prop is an instance of a class it does not serialize. */
const NOT_PLAIN = 'Only plain objects, and a few built-ins, can be passed to Client Components';

interface Logged {
  readonly level: string;
  readonly message: string;
}

interface Rendered {
  /** The requests of the list call when it was made before the render. */
  readonly listRequests?: string[];
  /** The requests the mock received while the props were built and the render ran. */
  readonly requests: string[];
  readonly payload: string;
  /** The messages `onError` received. */
  readonly errors: string[];
  readonly logged: Logged[];
  readonly expected?: Record<string, unknown>;
}

type CaseName =
  | 'page'
  | 'pagePromise'
  | 'promiseOfPage'
  | 'data'
  | 'controlPage'
  | 'controlPromiseOfPage';

/** A prop as the Client Component receives it (see `describe` in rsc-client.mjs). */
type Decoded =
  | { kind: 'object'; prototype: string; keys: string[]; value: unknown }
  | { kind: 'array'; value: unknown[] }
  | { kind: 'promise'; resolved: Decoded }
  | { kind: 'rejected'; message: string }
  | { kind: 'async-iterable'; items: unknown[] }
  | { kind: 'string' | 'number' | 'boolean' | 'undefined'; value: unknown };

/** Where the server script is bundled: inside node_modules, so that Node finds React from it. */
let directory = '';
let serverScript = '';

beforeAll(async () => {
  const cache = join(root, 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  directory = mkdtempSync(join(cache, 'secrets-vault-rsc-'));
  serverScript = join(directory, 'rsc-server.mjs');
  await build({
    entryPoints: [join(here, 'rsc-server.mjs')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    conditions: ['react-server'],
    // Resolved by Node at run time, with the condition, as a framework's server resolves them.
    external: ['react', 'react-dom', 'react-server-dom-webpack', 'msw'],
    outfile: serverScript,
    logLevel: 'silent',
    plugins: [
      {
        // The package by name is its sources, as in every other test (no build needed).
        name: 'sdk-sources',
        setup(bundle) {
          bundle.onResolve({ filter: /^@secrets-vault\/sdk(\/|$)/ }, ({ path }) => {
            const alias = packageAliases.find(({ find }) =>
              typeof find === 'string' ? find === path : find.test(path),
            );
            if (alias === undefined) return { errors: [{ text: `No sources for ${path}` }] };
            return { path: alias.replacement };
          });
        },
      },
    ],
  });
}, 30_000);

afterAll(() => {
  if (directory !== '') rmSync(directory, { recursive: true, force: true });
});

/** Runs a script with only the given environment, optional stdin, and parses its stdout. */
async function runScript<T>(args: string[], nodeEnv: string, input?: string): Promise<T> {
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', NODE_ENV: nodeEnv },
    stdio: ['pipe', 'pipe', 'pipe'],
    timeout: 20_000,
  });
  child.stdin.end(input ?? '');
  const { code, stdout, stderr } = await finished(child);
  if (code !== 0) throw new Error(`${args.join(' ')} exited with ${code}:\n${stderr}`);
  return JSON.parse(stdout) as T;
}

describe.each(['production', 'development'])('React %s build', (nodeEnv) => {
  let cases: Record<CaseName, Rendered>;
  let decoded: Record<CaseName, Record<string, Decoded>>;
  let clientLogged: Logged[];

  beforeAll(async () => {
    const server = await runScript<{ nodeEnv: string; cases: typeof cases }>(
      ['--conditions', 'react-server', serverScript],
      nodeEnv,
    );
    expect(server.nodeEnv).toBe(nodeEnv);
    cases = server.cases;
    const payloads = Object.fromEntries(
      Object.entries(cases).map(([name, rendered]) => [name, rendered.payload]),
    );
    const client = await runScript<{ decoded: typeof decoded; logged: Logged[] }>(
      [join(here, 'rsc-client.mjs')],
      nodeEnv,
      JSON.stringify(payloads),
    );
    decoded = client.decoded;
    clientLogged = client.logged;
  }, 30_000);

  it('passes an awaited Page as { data, nextCursor } and requests nothing more', () => {
    const { listRequests, requests, errors, logged, expected } = cases.page;
    expect(listRequests).toEqual([FIRST_PAGE]);
    expect(requests).toEqual([]);
    expect(errors).toEqual([]);
    expect(expected?.data).toHaveLength(3);
    expect(expected?.nextCursor).toEqual(expect.any(String));

    // What the Client Component receives: exactly the page's plain data.
    expect(decoded.page).toEqual({
      page: { kind: 'object', prototype: 'Object', keys: ['data', 'nextCursor'], value: expected },
    });

    if (nodeEnv === 'production') {
      expect(logged).toEqual([]);
    } else {
      // Development React warns about any class instance passed on, naming it by its tag, and
      // still sends what toJSON gave.
      expect(logged).toEqual([
        {
          level: 'error',
          message: expect.stringContaining(
            'Only plain objects can be passed to Client Components from Server Components. ' +
              'Page objects are not supported.',
          ),
        },
      ]);
    }
  });

  it.each([
    ['the PagePromise a list method returns', 'pagePromise'],
    ['a Promise that resolves to a Page', 'promiseOfPage'],
  ] as const)('fails the prop clearly, without walking the list, when given %s', (_, name) => {
    const { requests, errors, logged } = cases[name];
    // The list call itself, made during the render, and no later page.
    expect(requests).toEqual([FIRST_PAGE]);
    expect(errors).toEqual([expect.stringContaining(NOT_PLAIN)]);
    expect(logged).toEqual([]);

    // The client's promise rejects (production React hides the message from it).
    const page = decoded[name].page;
    expect(page?.kind).toBe('rejected');
    if (nodeEnv === 'development') {
      expect(page).toEqual({ kind: 'rejected', message: expect.stringContaining(NOT_PLAIN) });
    }
  });

  it('passes page.data and page.nextCursor as they are, requesting nothing more', () => {
    const { listRequests, requests, errors, logged, expected } = cases.data;
    expect(listRequests).toEqual([FIRST_PAGE]);
    expect(requests).toEqual([]);
    expect(errors).toEqual([]);
    expect(logged).toEqual([]);
    expect(expected?.vaults).toHaveLength(3);
    expect(decoded.data).toEqual({
      vaults: { kind: 'array', value: expected?.vaults },
      nextCursor: { kind: 'string', value: expected?.nextCursor },
    });
  });

  it.each([
    ['as a prop', 'controlPage'],
    ['through a Promise', 'controlPromiseOfPage'],
  ] as const)(
    'control: sees React walk the list when a Page is async-iterable again (%s)',
    (_, name) => {
      const { listRequests, requests, errors } = cases[name];
      expect(listRequests).toEqual([FIRST_PAGE]);
      // The two later pages of 9 vaults, 3 a page: what the fix stops.
      expect(requests).toEqual([
        expect.stringMatching(/^GET \/v1\/vaults\?limit=3&cursor=./),
        expect.stringMatching(/^GET \/v1\/vaults\?limit=3&cursor=./),
      ]);
      expect(errors).toEqual([]);
      const page = decoded[name].page;
      const iterable = page?.kind === 'promise' ? page.resolved : page;
      expect(iterable).toEqual({ kind: 'async-iterable', items: expect.any(Array) });
      expect(iterable && 'items' in iterable ? iterable.items : []).toHaveLength(9);
    },
  );

  it('decodes every payload without React logging anything on the client', () => {
    expect(clientLogged).toEqual([]);
  });
});
