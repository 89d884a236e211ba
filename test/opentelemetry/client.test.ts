/**
 * The client's calls as the real OpenTelemetry SDK records them, end to end: the client with
 * `telemetry: openTelemetry(…)` against the mock served over HTTP on loopback, through each
 * transport (node:http and Node's fetch: the suite runs once with each). The spans are read back
 * from an in-memory exporter, as a collector would receive them; what each attempt sent is read
 * on the server's side.
 */
import { createRequire } from 'node:module';
import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { http } from 'msw';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  APITimeoutError,
  APIUserAbortError,
  type ClientOptions,
  InternalServerError,
  NotFoundError,
  SecretsVault,
  UnprocessableEntityError,
} from '../../src/index.js';
import { createVaultMock, type VaultMock } from '../../src/mock/index.js';
import { type ServedVaultMock, serveVaultMock } from '../../src/mock/node.js';
import { openTelemetry } from '../../src/opentelemetry/index.js';
import { rejectionOf } from '../rejection.js';

const SCOPE = '@secrets-vault/sdk';

const exporter = new InMemorySpanExporter();
const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
const propagator = new W3CTraceContextPropagator();

const mock = createVaultMock();

/** One request as the mock received it. */
interface Received {
  readonly method: string;
  readonly path: string;
  readonly traceparent: string | null;
}
const received: Received[] = [];
/** Answers a request in the mock's place when it returns a response (an echoing server). */
let answer: ((request: Request) => Response | undefined) | undefined;

// Sees every request first, then lets the mock answer it (a resolver that returns nothing
// passes the request on to the next handler).
const recorder = http.all(`${mock.baseUrl}/*`, ({ request }) => {
  received.push({
    method: request.method,
    path: new URL(request.url).pathname,
    traceparent: request.headers.get('traceparent'),
  });
  return answer?.(request);
});

let served: ServedVaultMock;
let port: number;

beforeAll(async () => {
  // The operation's span is the active one while its attempts run only with a context manager.
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const recorded: VaultMock = {
    ...mock,
    get principals() {
      return mock.principals;
    },
    handlers: [recorder, ...mock.handlers],
  };
  served = await serveVaultMock(recorded);
  port = Number(new URL(served.url).port);
});
beforeEach(() => {
  mock.reset();
  received.length = 0;
  answer = undefined;
  exporter.reset();
});
afterAll(async () => {
  await served.close();
  context.disable();
  await provider.shutdown();
});

const TOKEN = () => mock.principals.owner.token;

/** A client that reports to the test's provider. */
const traced = (options: ClientOptions = {}) =>
  new SecretsVault({
    baseUrl: served.url,
    token: TOKEN(),
    telemetry: openTelemetry({ tracerProvider: provider, propagator }),
    ...options,
  });
/** A client that reports nothing: what each test sets up before the call it looks at. */
const plain = () => new SecretsVault({ baseUrl: served.url, token: TOKEN(), maxRetries: 0 });

const spans = () => exporter.getFinishedSpans();
const ours = () => spans().filter((span) => span.instrumentationScope.name === SCOPE);
const operations = () => ours().filter((span) => span.kind === SpanKind.INTERNAL);
const clients = () => spans().filter((span) => span.kind === SpanKind.CLIENT);
const ids = (span: ReadableSpan) => span.spanContext();
const attemptsOf = (operation: ReadableSpan) =>
  clients().filter((span) => span.parentSpanContext?.spanId === ids(operation).spanId);

/** The one operation span the call made, and its attempt spans in the order they were sent. */
function theOperation(name: string): { operation: ReadableSpan; attempts: ReadableSpan[] } {
  const all = operations();
  expect(all.map((span) => span.name)).toEqual([name]);
  const operation = all[0] as ReadableSpan;
  return { operation, attempts: attemptsOf(operation) };
}

const server = () => ({ 'server.address': '127.0.0.1', 'server.port': port });

/** Every form in which an echoed string may come back. */
const formsOf = (text: string) => [
  text,
  JSON.stringify(text).slice(1, -1),
  encodeURIComponent(text),
  text.toLowerCase(),
];

/** Everything an exporter sends of a span, as JSON. */
const exported = (span: ReadableSpan) =>
  JSON.stringify({
    name: span.name,
    kind: span.kind,
    attributes: span.attributes,
    status: span.status,
    events: span.events,
    links: span.links,
    resource: span.resource.attributes,
    scope: span.instrumentationScope,
  });

describe('a call, as OpenTelemetry records it', () => {
  it('records vaults.get as an INTERNAL operation span with one CLIENT attempt span under it', async () => {
    const vault = await plain().vaults.create({ name: 'Payments' });

    await traced().vaults.get(vault.id);

    const { operation, attempts } = theOperation('vaults.get');
    expect(operation.attributes).toEqual({ ...server(), 'secrets_vault.attempts': 1 });
    expect(operation.status).toEqual({ code: SpanStatusCode.UNSET });
    expect(operation.parentSpanContext).toBeUndefined();
    expect(clients()).toHaveLength(1);
    const [attempt] = attempts;
    expect(attempt?.name).toBe('GET /v1/vaults/{vaultId}');
    expect(attempt?.instrumentationScope.name).toBe(SCOPE);
    expect(attempt && ids(attempt).traceId).toBe(ids(operation).traceId);
    expect(attempt?.attributes).toEqual({
      ...server(),
      'http.request.method': 'GET',
      'url.template': '/v1/vaults/{vaultId}',
      'url.full': `${served.url}/v1/vaults/${vault.id}`,
      'http.response.status_code': 200,
    });
    expect(attempt?.status).toEqual({ code: SpanStatusCode.UNSET });
  });

  it('records a 503 then a success as one operation of two attempts, the retry with its resend count', async () => {
    const vault = await plain().vaults.create({ name: 'Payments' });
    mock.faults.inject(
      { method: 'GET', path: '/v1/vaults/:vaultId', times: 1 },
      { kind: 'status', status: 503 },
    );

    await traced().vaults.get(vault.id);

    const { operation, attempts } = theOperation('vaults.get');
    expect(operation.attributes['secrets_vault.attempts']).toBe(2);
    expect(operation.status).toEqual({ code: SpanStatusCode.UNSET });
    expect(attempts).toHaveLength(2);
    const [first, second] = attempts;
    expect(first?.attributes['http.response.status_code']).toBe(503);
    expect(first?.attributes['error.type']).toBe('503');
    expect(first?.attributes['http.request.resend_count']).toBeUndefined();
    expect(first?.status).toEqual({ code: SpanStatusCode.ERROR });
    expect(second?.attributes['http.response.status_code']).toBe(200);
    expect(second?.attributes['http.request.resend_count']).toBe(1);
    expect(second?.attributes['error.type']).toBeUndefined();
  });

  it('records an attempt whose connection dropped with a system code or class name as its error type', async () => {
    const vault = await plain().vaults.create({ name: 'Payments' });
    mock.faults.inject(
      { method: 'GET', path: '/v1/vaults/:vaultId', times: 1 },
      { kind: 'network-error' },
    );

    await traced().vaults.get(vault.id);

    const { operation, attempts } = theOperation('vaults.get');
    expect(operation.attributes['secrets_vault.attempts']).toBe(2);
    expect(operation.attributes['error.type']).toBeUndefined();
    const [first, second] = attempts;
    expect(first?.attributes['http.response.status_code']).toBeUndefined();
    expect(first?.attributes['error.type']).toMatch(/^[A-Za-z][\w.]*$/);
    expect(first?.attributes['error.type']).not.toBe('200');
    expect(first?.status).toEqual({ code: SpanStatusCode.ERROR });
    expect(second?.attributes['http.response.status_code']).toBe(200);
  });

  it('records a call that timed out with APITimeoutError and status ERROR', async () => {
    const vault = await plain().vaults.create({ name: 'Payments' });
    mock.faults.inject(
      { method: 'GET', path: '/v1/vaults/:vaultId', times: 1 },
      { kind: 'delay', ms: 1_000 },
    );

    const error = await rejectionOf(traced().vaults.get(vault.id, { timeout: 50, maxRetries: 0 }));

    expect(error).toBeInstanceOf(APITimeoutError);
    const { operation, attempts } = theOperation('vaults.get');
    expect(operation.attributes).toEqual({
      ...server(),
      'secrets_vault.attempts': 1,
      'error.type': 'APITimeoutError',
    });
    expect(operation.status).toEqual({
      code: SpanStatusCode.ERROR,
      message: (error as Error).message,
    });
    expect(attempts).toHaveLength(1);
    expect(attempts[0]?.attributes['http.response.status_code']).toBeUndefined();
    expect(attempts[0]?.attributes['error.type']).toBe('TimeoutError');
    expect(attempts[0]?.status).toEqual({ code: SpanStatusCode.ERROR });
  });

  it('records a 404 as NotFoundError on the operation and 404 on its attempt', async () => {
    const error = await rejectionOf(traced().vaults.get('vlt_missing'));

    expect(error).toBeInstanceOf(NotFoundError);
    const { operation, attempts } = theOperation('vaults.get');
    expect(operation.attributes['error.type']).toBe('NotFoundError');
    expect(operation.attributes['secrets_vault.attempts']).toBe(1);
    expect(operation.status).toEqual({
      code: SpanStatusCode.ERROR,
      message: (error as Error).message,
    });
    expect(attempts).toHaveLength(1);
    expect(attempts[0]?.attributes['http.response.status_code']).toBe(404);
    expect(attempts[0]?.attributes['error.type']).toBe('404');
  });

  it("sends each attempt's own span context as its traceparent, a new one on each retry", async () => {
    const vault = await plain().vaults.create({ name: 'Payments' });
    received.length = 0;
    mock.faults.inject(
      { method: 'GET', path: '/v1/vaults/:vaultId', times: 1 },
      { kind: 'status', status: 503 },
    );

    await traced().vaults.get(vault.id);

    const { attempts } = theOperation('vaults.get');
    expect(attempts).toHaveLength(2);
    expect(received.map((request) => request.traceparent)).toEqual(
      attempts.map((span) => `00-${ids(span).traceId}-${ids(span).spanId}-01`),
    );
    expect(received[0]?.traceparent).not.toBe(received[1]?.traceparent);
  });

  it('records one operation span per page a list fetches', async () => {
    const setup = plain();
    for (const name of ['a', 'b', 'c']) await setup.vaults.create({ name });

    const vaults = await traced().vaults.list({ limit: 2 }).toArray();

    expect(vaults).toHaveLength(3);
    const pages = operations();
    expect(pages.map((span) => span.name)).toEqual(['vaults.list', 'vaults.list']);
    for (const page of pages) {
      expect(page.attributes['secrets_vault.attempts']).toBe(1);
      expect(attemptsOf(page).map((span) => span.name)).toEqual(['GET /v1/vaults']);
    }
    const urls = pages.map((page) => attemptsOf(page)[0]?.attributes['url.full']);
    expect(urls[0]).toBe(`${served.url}/v1/vaults?limit=2`);
    expect(urls[1]).toMatch(/[?&]cursor=/);
  });

  it('records a call inside an active span of the caller under that span', async () => {
    const vault = await plain().vaults.create({ name: 'Payments' });

    await provider.getTracer('job').startActiveSpan('startup', async (job) => {
      await traced().vaults.get(vault.id);
      job.end();
    });

    const job = spans().find((span) => span.name === 'startup');
    const { operation, attempts } = theOperation('vaults.get');
    expect(operation.parentSpanContext?.spanId).toBe(job && ids(job).spanId);
    expect(ids(operation).traceId).toBe(job && ids(job).traceId);
    expect(attempts).toHaveLength(1);
  });

  it('records an aborted call with APIUserAbortError', async () => {
    const vault = await plain().vaults.create({ name: 'Payments' });
    const hold = mock.faults.inject(
      { method: 'GET', path: '/v1/vaults/:vaultId', times: 1 },
      { kind: 'hold' },
    );
    const controller = new AbortController();

    const call = rejectionOf(traced().vaults.get(vault.id, { signal: controller.signal }));
    await hold.held;
    controller.abort();
    const error = await call;
    hold.release();

    expect(error).toBeInstanceOf(APIUserAbortError);
    const { operation, attempts } = theOperation('vaults.get');
    expect(operation.attributes['error.type']).toBe('APIUserAbortError');
    expect(operation.attributes['secrets_vault.attempts']).toBe(1);
    expect(operation.status.code).toBe(SpanStatusCode.ERROR);
    expect(attempts).toHaveLength(1);
    expect(attempts[0]?.attributes['error.type']).toBe('AbortError');
  });
});

describe('startup calls and secret values', () => {
  const VALUE = 'correct-horse-battery-staple-otel';

  /** A vault with one secret holding VALUE. */
  async function vaultWithSecret() {
    const vault = await plain().vaults.create({ name: 'Payments' });
    await plain().secrets.create(vault.id, { name: 'database', value: { password: VALUE } });
    return vault;
  }

  /** Answers the values endpoint once with a 503 whose message and request id echo the token. */
  function echoTokenOnce(): void {
    let left = 1;
    answer = (request) => {
      if (!request.url.endsWith('/secrets/values') || left === 0) return undefined;
      left -= 1;
      const authorization = request.headers.get('authorization') ?? '';
      return Response.json(
        {
          statusCode: 503,
          errorCode: 'internal_error',
          message: `upstream refused ${authorization}`,
          data: null,
        },
        { status: 503, headers: { 'X-Request-Id': `req-${authorization}` } },
      );
    };
  }

  function expectNoSecretIn(all: readonly ReadableSpan[]): void {
    expect(all.length).toBeGreaterThan(0);
    const printed = all.map(exported).join('\n');
    for (const secret of [TOKEN(), VALUE]) {
      for (const form of formsOf(secret)) expect(printed).not.toContain(form);
    }
  }

  it('records secrets.load that waits out a 503 as one operation span covering both attempts', async () => {
    const vault = await vaultWithSecret();
    echoTokenOnce();

    const loaded = await traced().secrets.load(vault.id, { wait: 10_000 });

    expect(loaded.database?.password).toBe(VALUE);
    const { operation, attempts } = theOperation('secrets.load');
    expect(operation.attributes['secrets_vault.attempts']).toBe(2);
    expect(operation.status).toEqual({ code: SpanStatusCode.UNSET });
    expect(attempts.map((span) => span.name)).toEqual([
      'GET /v1/vaults/{vaultId}/secrets/values',
      'GET /v1/vaults/{vaultId}/secrets/values',
    ]);
    expect(attempts.map((span) => span.attributes['http.response.status_code'])).toEqual([
      503, 200,
    ]);
    // The operation covers its attempts and the wait between them: it ends (and is exported)
    // after its last attempt. (Span clocks are anchored per span, a millisecond apart at most, so
    // the order of the timestamps alone would not tell.)
    expect(spans().map((span) => span.name)).toEqual([
      'GET /v1/vaults/{vaultId}/secrets/values',
      'GET /v1/vaults/{vaultId}/secrets/values',
      'secrets.load',
    ]);
    const ms = ([seconds, nanos]: readonly [number, number]) => seconds * 1e3 + nanos / 1e6;
    const [first, second] = attempts as [ReadableSpan, ReadableSpan];
    expect(ms(operation.duration)).toBeGreaterThanOrEqual(
      ms(second.endTime) - ms(first.startTime) - 2,
    );
    expectNoSecretIn(spans());
  });

  it('records secrets.listValues that retries a 503 as one operation span', async () => {
    const vault = await vaultWithSecret();
    echoTokenOnce();

    const secrets = await traced().secrets.listValues(vault.id);

    expect(secrets.map((secret) => secret.value)).toEqual([{ password: VALUE }]);
    const { operation, attempts } = theOperation('secrets.listValues');
    expect(operation.attributes['secrets_vault.attempts']).toBe(2);
    expect(attempts).toHaveLength(2);
    expectNoSecretIn(spans());
  });

  it('keeps the token out of a failed operation whose server echoed it', async () => {
    const vault = await vaultWithSecret();
    echoTokenOnce();

    const error = await rejectionOf(traced({ maxRetries: 0 }).secrets.listValues(vault.id));

    expect(error).toBeInstanceOf(InternalServerError);
    const { operation } = theOperation('secrets.listValues');
    expect(operation.attributes['error.type']).toBe('InternalServerError');
    expect(operation.status.code).toBe(SpanStatusCode.ERROR);
    expect(operation.status.message).toContain('upstream refused');
    expectNoSecretIn(spans());
  });

  it('keeps the token and the value sent out of a failed create whose server echoed them', async () => {
    const vault = await plain().vaults.create({ name: 'Payments' });
    answer = (request) => {
      if (request.method !== 'POST' || !request.url.endsWith('/secrets')) return undefined;
      const authorization = request.headers.get('authorization') ?? '';
      return Response.json(
        {
          statusCode: 422,
          errorCode: 'unprocessable',
          message: `refused ${authorization} for value ${VALUE}`,
          data: null,
        },
        { status: 422 },
      );
    };

    const error = await rejectionOf(
      traced().secrets.create(vault.id, { name: 'database', value: { password: VALUE } }),
    );

    expect(error).toBeInstanceOf(UnprocessableEntityError);
    const { operation } = theOperation('secrets.create');
    expect(operation.attributes['error.type']).toBe('UnprocessableEntityError');
    expect(operation.status.message).toContain('refused');
    expectNoSecretIn(spans());
  });
});

describe('beside instrumentation-http and instrumentation-undici', () => {
  let unregister: () => void;

  beforeAll(() => {
    // Enabled, as an application enables them, and recording to the same provider.
    unregister = registerInstrumentations({
      instrumentations: [new HttpInstrumentation(), new UndiciInstrumentation()],
      tracerProvider: provider,
    });
    // instrumentation-http patches node:http when it is required: the client reaches the same
    // module object.
    const require = createRequire(import.meta.url);
    require('node:http');
    require('node:https');
  });
  afterAll(() => unregister());

  // undici ends its span on the request's last event, a turn after the body is read.
  const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

  it('lets the instrumentations record the requests of a client without telemetry (the control)', async () => {
    await plain().vaults.list();
    await settle();

    expect(clients()).toHaveLength(1);
    expect(clients()[0]?.instrumentationScope.name).not.toBe(SCOPE);
  });

  it('records each attempt once, as the client’s own CLIENT span', async () => {
    const vault = await plain().vaults.create({ name: 'Payments' });
    await settle();
    exporter.reset();
    mock.faults.inject(
      { method: 'GET', path: '/v1/vaults/:vaultId', times: 1 },
      { kind: 'status', status: 503 },
    );

    await traced().vaults.get(vault.id);
    await settle();

    const { attempts } = theOperation('vaults.get');
    expect(attempts).toHaveLength(2);
    expect(clients()).toEqual(attempts);
    expect(clients().map((span) => span.instrumentationScope.name)).toEqual([SCOPE, SCOPE]);
  });
});

describe('without the telemetry option', () => {
  beforeEach(() => {
    trace.setGlobalTracerProvider(provider);
    propagation.setGlobalPropagator(propagator);
  });
  afterEach(() => {
    trace.disable();
    propagation.disable();
  });

  it('records nothing to a provider registered globally, and sends no traceparent', async () => {
    const vault = await plain().vaults.create({ name: 'Payments' });
    await plain().vaults.get(vault.id);
    await plain().vaults.list().toArray();

    expect(spans()).toEqual([]);
    expect(received.map((request) => request.traceparent)).toEqual([null, null, null]);
  });

  it('records to that provider with openTelemetry() and its defaults (the control)', async () => {
    const vault = await plain().vaults.create({ name: 'Payments' });
    received.length = 0;

    await new SecretsVault({
      baseUrl: served.url,
      token: TOKEN(),
      telemetry: openTelemetry(),
    }).vaults.get(vault.id);

    const { attempts } = theOperation('vaults.get');
    expect(attempts).toHaveLength(1);
    expect(received[0]?.traceparent).toBe(
      attempts[0] && `00-${ids(attempts[0]).traceId}-${ids(attempts[0]).spanId}-01`,
    );
  });
});
