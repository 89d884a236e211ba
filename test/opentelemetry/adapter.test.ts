/**
 * `openTelemetry()` driven through the `Telemetry` interface the client reports to, recording
 * into the real OpenTelemetry SDK: the spans are read back from an in-memory exporter, as a
 * collector would receive them.
 */
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { isTracingSuppressed, W3CTraceContextPropagator } from '@opentelemetry/core';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AttemptStart } from '../../src/core/telemetry.js';
import { openTelemetry } from '../../src/opentelemetry/index.js';

const exporter = new InMemorySpanExporter();
const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
const propagator = new W3CTraceContextPropagator();

const OPERATION = {
  name: 'vaults.get',
  url: 'https://vault.example.com:8443/v1/vaults/vlt_1?include=members',
};
const ATTEMPT = {
  method: 'GET',
  urlTemplate: '/v1/vaults/{vaultId}',
  url: 'https://vault.example.com:8443/v1/vaults/vlt_1?include=members',
  resendCount: 0,
} satisfies AttemptStart;

beforeAll(() => {
  // `context.with` only carries a context across awaits with a real context manager.
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
});
afterEach(() => exporter.reset());
afterAll(async () => {
  context.disable();
  await provider.shutdown();
});

const finished = () => exporter.getFinishedSpans();
const only = (kind: SpanKind) => finished().filter((span) => span.kind === kind);
const ids = (span: ReadableSpan) => span.spanContext();

describe('openTelemetry()', () => {
  it('records an operation of three attempts (503, ECONNREFUSED, 200) as one INTERNAL span with three CLIENT children', async () => {
    const telemetry = openTelemetry({ tracerProvider: provider, propagator });
    const operation = telemetry.startOperation(OPERATION);

    const first = operation.startAttempt(ATTEMPT);
    await first.run(async () => undefined);
    first.end({ status: 503, errorType: '503' });
    const second = operation.startAttempt({ ...ATTEMPT, resendCount: 1 });
    second.end({ errorType: 'ECONNREFUSED' });
    const third = operation.startAttempt({ ...ATTEMPT, resendCount: 2 });
    third.end({ status: 200 });
    operation.end({ attempts: 3 });

    const [operationSpan, ...others] = only(SpanKind.INTERNAL);
    expect(others).toEqual([]);
    if (!operationSpan) throw new Error('no operation span');
    expect(operationSpan.name).toBe('vaults.get');
    expect(operationSpan.parentSpanContext).toBeUndefined();
    expect(operationSpan.instrumentationScope.name).toBe('@secrets-vault/sdk');
    expect(operationSpan.attributes).toEqual({
      'server.address': 'vault.example.com',
      'server.port': 8443,
      'secrets_vault.attempts': 3,
    });
    expect(operationSpan.status).toEqual({ code: SpanStatusCode.UNSET });

    const attempts = only(SpanKind.CLIENT);
    expect(attempts.map((span) => span.name)).toEqual([
      'GET /v1/vaults/{vaultId}',
      'GET /v1/vaults/{vaultId}',
      'GET /v1/vaults/{vaultId}',
    ]);
    for (const span of attempts) {
      expect(span.parentSpanContext?.spanId).toBe(ids(operationSpan).spanId);
      expect(ids(span).traceId).toBe(ids(operationSpan).traceId);
      expect(span.events).toEqual([]);
    }
    const common = {
      'http.request.method': 'GET',
      'url.template': '/v1/vaults/{vaultId}',
      'url.full': 'https://vault.example.com:8443/v1/vaults/vlt_1?include=members',
      'server.address': 'vault.example.com',
      'server.port': 8443,
    };
    expect(attempts.map((span) => span.attributes)).toEqual([
      { ...common, 'http.response.status_code': 503, 'error.type': '503' },
      { ...common, 'http.request.resend_count': 1, 'error.type': 'ECONNREFUSED' },
      { ...common, 'http.request.resend_count': 2, 'http.response.status_code': 200 },
    ]);
    expect(attempts.map((span) => span.status)).toEqual([
      { code: SpanStatusCode.ERROR },
      { code: SpanStatusCode.ERROR },
      { code: SpanStatusCode.UNSET },
    ]);
  });

  it("sends each attempt's own span context as its traceparent header", () => {
    const operation = openTelemetry({ tracerProvider: provider, propagator }).startOperation(
      OPERATION,
    );
    const records = [0, 1].map((resendCount) => {
      const record = operation.startAttempt({ ...ATTEMPT, resendCount });
      record.end({ status: 200 });
      return record;
    });
    operation.end({ attempts: 2 });

    const attempts = only(SpanKind.CLIENT);
    expect(attempts).toHaveLength(2);
    for (const [index, span] of attempts.entries()) {
      const { traceId, spanId } = ids(span);
      expect(records[index]?.headers).toEqual({ traceparent: `00-${traceId}-${spanId}-01` });
    }
  });

  it("nests the operation under the caller's active span", async () => {
    const tracer = provider.getTracer('job');
    await tracer.startActiveSpan('startup', async (job) => {
      const operation = openTelemetry({ tracerProvider: provider }).startOperation(OPERATION);
      operation.startAttempt(ATTEMPT).end({ status: 200 });
      operation.end({ attempts: 1 });
      job.end();
    });

    const [operationSpan] = only(SpanKind.INTERNAL).filter((span) => span.name === 'vaults.get');
    const [job] = only(SpanKind.INTERNAL).filter((span) => span.name === 'startup');
    expect(operationSpan?.parentSpanContext?.spanId).toBe(job && ids(job).spanId);
    expect(only(SpanKind.CLIENT)[0]?.parentSpanContext?.spanId).toBe(
      operationSpan && ids(operationSpan).spanId,
    );
  });

  it('records a failed operation with its error class, its scrubbed message as status, and a 404 attempt as failed', () => {
    const operation = openTelemetry({ tracerProvider: provider, propagator }).startOperation({
      ...OPERATION,
      name: 'secrets.load',
    });
    operation.startAttempt({ ...ATTEMPT, urlTemplate: '/v1/vaults/{vaultId}/values' }).end({
      status: 404,
    });
    operation.end({ attempts: 1, errorType: 'NotFoundError', errorMessage: 'Vault not found' });

    const [attempt] = only(SpanKind.CLIENT);
    expect(attempt?.name).toBe('GET /v1/vaults/{vaultId}/values');
    expect(attempt?.attributes['http.response.status_code']).toBe(404);
    // A 4xx fails a CLIENT span: the conventions' error type for a status is the status code.
    expect(attempt?.attributes['error.type']).toBe('404');
    expect(attempt?.status).toEqual({ code: SpanStatusCode.ERROR });

    const [operationSpan] = only(SpanKind.INTERNAL);
    expect(operationSpan?.name).toBe('secrets.load');
    expect(operationSpan?.attributes).toEqual({
      'server.address': 'vault.example.com',
      'server.port': 8443,
      'secrets_vault.attempts': 1,
      'error.type': 'NotFoundError',
    });
    expect(operationSpan?.status).toEqual({
      code: SpanStatusCode.ERROR,
      message: 'Vault not found',
    });
    expect(operationSpan?.events).toEqual([]);
  });

  it('runs the sending with tracing suppressed and the attempt span active, and restores the context after', async () => {
    const operation = openTelemetry({ tracerProvider: provider, propagator }).startOperation(
      OPERATION,
    );
    const attempt = operation.startAttempt(ATTEMPT);
    const seen = await attempt.run(async () => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      // What an HTTP instrumentation would start here is not recorded.
      provider.getTracer('instrumentation').startSpan('GET').end();
      return {
        suppressed: isTracingSuppressed(context.active()),
        spanId: trace.getActiveSpan()?.spanContext().spanId,
      };
    });
    expect(isTracingSuppressed(context.active())).toBe(false);
    attempt.end({ status: 200 });
    operation.end({ attempts: 1 });

    const [attemptSpan] = only(SpanKind.CLIENT);
    expect(seen).toEqual({ suppressed: true, spanId: attemptSpan && ids(attemptSpan).spanId });
    expect(finished().map((span) => span.name)).toEqual(['GET /v1/vaults/{vaultId}', 'vaults.get']);
  });

  describe('with the global tracer provider and propagator', () => {
    afterEach(() => {
      trace.disable();
      propagation.disable();
    });

    it('records to a provider registered after it was made, and injects through the global propagator', () => {
      const telemetry = openTelemetry();
      trace.setGlobalTracerProvider(provider);
      propagation.setGlobalPropagator(propagator);

      const operation = telemetry.startOperation(OPERATION);
      const attempt = operation.startAttempt(ATTEMPT);
      attempt.end({ status: 200 });
      operation.end({ attempts: 1 });

      expect(finished().map((span) => span.name)).toEqual([
        'GET /v1/vaults/{vaultId}',
        'vaults.get',
      ]);
      const [attemptSpan] = only(SpanKind.CLIENT);
      expect(attempt.headers.traceparent).toBe(
        attemptSpan && `00-${ids(attemptSpan).traceId}-${ids(attemptSpan).spanId}-01`,
      );
    });

    it('adds no header and records nothing when no SDK is registered', () => {
      const operation = openTelemetry().startOperation(OPERATION);
      const attempt = operation.startAttempt(ATTEMPT);
      attempt.end({ status: 200 });
      operation.end({ attempts: 1 });
      expect(attempt.headers).toEqual({});
      expect(finished()).toEqual([]);
    });
  });
});

describe('openTelemetry() beside the HTTP instrumentations', () => {
  let server: Server;
  let url: string;
  let unregister: () => void;

  beforeAll(async () => {
    // Made enabled, as an application makes them: undici's ignores every request otherwise.
    unregister = registerInstrumentations({
      instrumentations: [new HttpInstrumentation(), new UndiciInstrumentation()],
      tracerProvider: provider,
    });
    propagation.setGlobalPropagator(propagator);
    server = createServer((request, response) => {
      response.end(request.headers.traceparent ?? '');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/vaults/vlt_1`;
  });
  afterAll(async () => {
    unregister();
    propagation.disable();
    await new Promise((resolve) => server.close(resolve));
  });

  // `node:http` as instrumentation-http patches it: the module object `require` hands out.
  const httpGet = (target: string, headers: Record<string, string>) =>
    new Promise<string>((resolve, reject) => {
      const nodeHttp = createRequire(import.meta.url)('node:http') as typeof import('node:http');
      nodeHttp
        .get(target, { headers }, (response) => {
          let body = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => {
            body += chunk;
          });
          response.on('end', () => resolve(body));
        })
        .on('error', reject);
    });
  const viaFetch = async (target: string, headers: Record<string, string>) => {
    const body = await (await fetch(target, { headers })).text();
    // undici ends its span on the request's last event, a turn after the body is read.
    await new Promise((resolve) => setTimeout(resolve, 20));
    return body;
  };

  for (const [name, send] of [
    ['instrumentation-http', httpGet],
    ['instrumentation-undici', viaFetch],
  ] as const) {
    it(`records an attempt sent with ${name} active once, with its own traceparent`, async () => {
      const operation = openTelemetry({ tracerProvider: provider }).startOperation({
        ...OPERATION,
        url,
      });
      const attempt = operation.startAttempt({ ...ATTEMPT, url });
      const received = await attempt.run(() => send(url, { ...attempt.headers }));
      attempt.end({ status: 200 });
      operation.end({ attempts: 1 });

      const clients = only(SpanKind.CLIENT);
      expect(clients.map((span) => span.name)).toEqual(['GET /v1/vaults/{vaultId}']);
      expect(received).toBe(attempt.headers.traceparent);
    });

    it(`lets ${name} record a request sent outside an attempt (the control)`, async () => {
      await send(url, {});
      expect(only(SpanKind.CLIENT)).toHaveLength(1);
    });
  }
});
