/**
 * The client's calls as OpenTelemetry spans: one INTERNAL span per operation, one CLIENT span
 * per HTTP attempt under it, named and attributed after OpenTelemetry's stable HTTP client
 * conventions.
 */
import {
  type Attributes,
  type Context,
  context,
  createContextKey,
  defaultTextMapSetter,
  propagation,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapPropagator,
  type TracerProvider,
  trace,
} from '@opentelemetry/api';
import type {
  AttemptEnd,
  AttemptRecord,
  AttemptStart,
  OperationEnd,
  OperationRecord,
  OperationStart,
  Telemetry,
} from '../core/telemetry.js';

/** Options of {@link openTelemetry}. */
export interface OpenTelemetryOptions {
  /**
   * Where the spans go.
   *
   * @default the global tracer provider (`trace.getTracerProvider()`), as registered by your
   * OpenTelemetry SDK setup, even when it registers after this call
   */
  readonly tracerProvider?: TracerProvider | undefined;
  /**
   * What writes the trace context into each request's headers.
   *
   * @default the global propagator (`propagation`), W3C Trace Context in the SDK's default setup
   */
  readonly propagator?: TextMapPropagator | undefined;
}

/** The instrumentation scope of every span: the package, as OpenTelemetry asks libraries to. */
const TRACER_NAME = '@secrets-vault/sdk';

// The package's version, written in by the build; absent when the sources run as they are.
declare const __SECRETS_VAULT_SDK_VERSION__: string | undefined;
const TRACER_VERSION =
  typeof __SECRETS_VAULT_SDK_VERSION__ === 'string' ? __SECRETS_VAULT_SDK_VERSION__ : undefined;

// The key of `suppressTracing` in @opentelemetry/core, which every HTTP instrumentation checks
// before it starts a span. `createContextKey` is `Symbol.for`, so the same description is the
// same key without depending on @opentelemetry/core (nor on its version).
const SUPPRESS_TRACING_KEY = createContextKey('OpenTelemetry SDK Context Key SUPPRESS_TRACING');

/**
 * Reports the client's calls to OpenTelemetry: give the result as the client's `telemetry`
 * option. Each call becomes an INTERNAL span named as you call it (`vaults.get`), each HTTP
 * attempt a CLIENT span under it (`GET /v1/vaults/{vaultId}`) whose trace context goes out in
 * the request's `traceparent` header. With `@opentelemetry/instrumentation-http` or
 * `-undici` active too, an attempt is still recorded once: theirs is suppressed for it.
 *
 * Spans carry no header, body, token or secret value; URLs and error messages are scrubbed
 * before they are recorded.
 *
 * @example
 * ```ts
 * import { SecretsVault } from '@secrets-vault/sdk';
 * import { openTelemetry } from '@secrets-vault/sdk/opentelemetry';
 *
 * const client = new SecretsVault({ telemetry: openTelemetry() });
 * ```
 */
export function openTelemetry(options: OpenTelemetryOptions = {}): Telemetry {
  // The global provider is a proxy: a tracer taken from it now follows an SDK registered later.
  const tracer = (options.tracerProvider ?? trace.getTracerProvider()).getTracer(
    TRACER_NAME,
    TRACER_VERSION,
  );
  const { propagator } = options;
  const inject = (carrier: Record<string, string>, attemptContext: Context): void => {
    if (propagator) propagator.inject(attemptContext, carrier, defaultTextMapSetter);
    else propagation.inject(attemptContext, carrier);
  };

  return {
    startOperation(operation: OperationStart): OperationRecord {
      // The caller's context: the operation nests under the caller's span, with its baggage.
      const callerContext = context.active();
      const span = tracer.startSpan(
        operation.name,
        {
          kind: SpanKind.INTERNAL,
          attributes: serverOf(operation.url),
        },
        callerContext,
      );
      const operationContext = trace.setSpan(callerContext, span);
      return {
        startAttempt: (attempt) => startAttempt(attempt, operationContext),
        end: (outcome) => endOperation(span, outcome),
      };
    },
  };

  function startAttempt(attempt: AttemptStart, operationContext: Context): AttemptRecord {
    const attributes: Attributes = {
      'http.request.method': attempt.method,
      'url.template': attempt.urlTemplate,
      'url.full': attempt.url,
      ...serverOf(attempt.url),
    };
    // The conventions count retries only: the first attempt has no resend count.
    if (attempt.resendCount > 0) attributes['http.request.resend_count'] = attempt.resendCount;
    const span = tracer.startSpan(
      `${attempt.method} ${attempt.urlTemplate}`,
      { kind: SpanKind.CLIENT, attributes },
      operationContext,
    );
    const attemptContext = trace.setSpan(operationContext, span);
    const headers: Record<string, string> = {};
    inject(headers, attemptContext);
    // The attempt's span stays the active one while it is sent, so that what the sending
    // starts nests under it, and HTTP instrumentations see tracing suppressed and record
    // nothing: the request would otherwise be a second CLIENT span, with its own traceparent.
    const sendingContext = attemptContext.setValue(SUPPRESS_TRACING_KEY, true);
    return {
      headers,
      run: (send) => context.with(sendingContext, send),
      end: (outcome) => endAttempt(span, outcome),
    };
  }
}

function endAttempt(span: Span, outcome: AttemptEnd): void {
  if (outcome.status !== undefined) span.setAttribute('http.response.status_code', outcome.status);
  // A status of 400 or more fails a CLIENT span, its error type being the status code.
  const errorType =
    outcome.errorType ??
    (outcome.status !== undefined && outcome.status >= 400 ? String(outcome.status) : undefined);
  if (errorType !== undefined) {
    span.setAttribute('error.type', errorType);
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
}

function endOperation(span: Span, outcome: OperationEnd): void {
  span.setAttribute('secrets_vault.attempts', outcome.attempts);
  if (outcome.errorType !== undefined) {
    span.setAttribute('error.type', outcome.errorType);
    span.setStatus(
      outcome.errorMessage === undefined
        ? { code: SpanStatusCode.ERROR }
        : { code: SpanStatusCode.ERROR, message: outcome.errorMessage },
    );
  }
  span.end();
}

/**
 * `server.address` and `server.port` of `url`: its host (an IPv6 address without its brackets)
 * and its port, the scheme's default when it names none.
 */
function serverOf(url: string): Attributes {
  const { hostname, port, protocol } = new URL(url);
  return {
    'server.address': hostname.replace(/^\[(.*)\]$/, '$1'),
    'server.port': port === '' ? (protocol === 'https:' ? 443 : 80) : Number(port),
  };
}
