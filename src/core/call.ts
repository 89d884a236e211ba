/**
 * The one request path: every method of every resource, and every page of a list, is one call
 * of {@link Caller.call}, which reads top to bottom: build the request, send one attempt,
 * interpret what came back (response.ts), ask the retry policy (retry.ts), wait, repeat.
 *
 * ky is the transport of every attempt (its `Request`, its per-attempt timeout, its refusal to
 * follow a redirect) and sends exactly one attempt each time; this loop owns everything across
 * attempts: the retries, the call's deadline (`totalTimeout`, a startup `wait`) over attempts
 * and waits, the retry budget, the logs and the telemetry.
 */
import ky, { type KyInstance, type Options } from 'ky';
import type { APIResponse } from './api-promise.js';
import { type AttemptOutcome, type CallState, detailsOf, note, scrub } from './call-state.js';
import { NotFoundError, type SecretsVaultError } from './errors.js';
import type { LevelLogger } from './logger.js';
import type { ClientConfig } from './options.js';
import type { PageResult } from './pagination.js';
import { sensitiveStrings } from './redaction.js';
import {
  causeOf,
  errorTypeOf,
  interpretFailure,
  interpretResponse,
  UnusableResponse,
} from './response.js';
import { deadlineOf, now, type RetryBudget, startRetries } from './retry.js';
import { type AnyRoute, type BuiltRequest, buildRequest } from './route.js';
import type { AttemptRecord, OperationRecord, Telemetry } from './telemetry.js';
import { afterMs } from './timer.js';
import { MAX_RESPONSE_BYTES } from './transport/body.js';
import { chooseSender } from './transport/choose.js';
import type { HttpResponseHead, HttpSend } from './transport/sender.js';
import { BodyCutOff } from './transport/sender.js';
import { UnusableBody } from './transport/whole-body.js';

/** @internal What a call resolves to: the unwrapped data, its response and its details. */
export type CallResult = APIResponse<unknown> & Pick<PageResult<unknown>, 'details'>;

/** @internal Sends the calls of one client. */
export class Caller {
  readonly #config: ClientConfig;
  readonly #ky: KyInstance;
  readonly #send: HttpSend;
  readonly #budget: RetryBudget | undefined;
  readonly #logger: LevelLogger | undefined;
  readonly #telemetry: Telemetry | undefined;
  // What to scrub for a call that sends no secret value: the token's forms, worked out once per
  // client rather than on every call that scrubs a request id.
  readonly #tokenSecrets: readonly string[];

  constructor(config: ClientConfig) {
    this.#config = config;
    this.#send = chooseSender(config.fetch);
    this.#budget = config.retryBudget;
    this.#logger = config.logger;
    this.#telemetry = config.telemetry;
    this.#tokenSecrets = sensitiveStrings([config.token]);
    // One attempt per ky call: no retries of its own, every status given back as it came, and a
    // redirect (which could carry the token and the body to another origin) never followed.
    this.#ky = ky.create({ retry: 0, throwHttpErrors: false, redirect: 'manual' });
  }

  /**
   * Makes the call `route` describes (the page at `cursor` of a list) and resolves to its data,
   * with the call's details as a page needs them; with `details` false, to what
   * `withResponse()` gives and no more, so a plain call does not work details out.
   *
   * @throws {SecretsVaultError} a subclass, with the call's details, for every failure
   */
  call(route: AnyRoute, cursor?: string): Promise<CallResult>;
  call(route: AnyRoute, cursor: undefined, details: false): Promise<APIResponse<unknown>>;
  async call(
    route: AnyRoute,
    cursor?: string,
    details = true,
  ): Promise<APIResponse<unknown> | CallResult> {
    const request = buildRequest(this.#config, route, cursor);
    const { settings, method } = request;
    const call: CallState = {
      request,
      logger: this.#logger,
      attempts: 0,
      requestId: null,
      secrets: route.sensitive?.length ? undefined : this.#tokenSecrets,
    };
    const startedAt = now();
    const deadline = startedAt + deadlineOf(settings, settings.totalTimeout);
    const retries = startRetries(settings, this.#budget, startedAt);
    const operation = this.#telemetry?.startOperation({
      name: route.operation,
      url: scrub(call, request.url),
    });
    // Whether an attempt ended without a whole response: it may have been carried out all the same.
    let lostResponse = false;
    for (;;) {
      call.attempts += 1;
      const outcome = await this.#attempt(call, deadline, operation);
      // The data of a whole response, or the SDK error the outcome comes to.
      const result =
        'thrown' in outcome
          ? { error: interpretFailure(call, outcome.thrown, startedAt) }
          : interpretResponse(call, outcome, route.expected);
      if (!('error' in result)) {
        retries.succeeded();
        operation?.end({ attempts: call.attempts });
        return details ? { ...result, details: detailsOf(call) } : result;
      }
      const { error } = result;
      if (!('response' in outcome)) lostResponse = true;
      // A DELETE whose earlier attempt lost its response may have been carried out by it: a 404
      // now means the resource is gone, which is what the caller asked for.
      if (method === 'DELETE' && lostResponse && error instanceof NotFoundError) {
        retries.succeeded();
        operation?.end({ attempts: call.attempts });
        const response = new Response(null, { status: error.status, headers: error.headers });
        const done = { data: undefined, response, requestId: null, replayed: false };
        return details ? { ...done, details: detailsOf(call) } : done;
      }
      // A caller's signal that has fired ends the call, even as a timeout: no retry can run.
      const delay = settings.signal?.aborted
        ? undefined
        : retries.next(error, request, call.attempts);
      if (delay === undefined) throw fail(call, operation, error, outcome);
      if (!retries.last) {
        const cause = causeOf('thrown' in outcome ? outcome.thrown : error);
        call.retried = `attempt ${call.attempts} failed with ${cause}`;
        note(call, 'warn', 'retrying', call.attempts + 1, { reason: errorTypeOf(error), cause });
      }
      const waited = await sleep(delay, settings.signal, deadline);
      // The rest of a startup wait, that a Retry-After past its deadline left no retry in, is over.
      if (retries.last && waited !== 'aborted') throw fail(call, operation, error, outcome);
      if (waited !== 'slept') {
        const ended = interpretFailure(call, waited, startedAt);
        throw fail(call, operation, ended, { thrown: waited });
      }
    }
  }

  /**
   * Sends one attempt through ky, whose `fetch` is the sender: it reads the whole body within
   * the attempt, so the per-attempt timeout covers it and a body cut off is a lost response
   * like a dropped connection. Never throws: what went wrong is the outcome.
   */
  async #attempt(
    call: CallState,
    deadline: number,
    operation: OperationRecord | undefined,
  ): Promise<AttemptOutcome> {
    const { request } = call;
    const { settings } = request;
    const attempt = call.attempts;
    const started = now();
    const left = deadline - started;
    if (left <= 0) return { thrown: 'deadline' };
    note(call, 'debug', '→', attempt);
    const record = operation?.startAttempt({
      method: request.method,
      urlTemplate: request.template,
      url: scrub(call, request.url),
      resendCount: attempt - 1,
    });
    // What the sender read, set before ky resolves with its response.
    const read: { head?: HttpResponseHead; text?: string } = {};
    // The attempt as sent: node:http sends these headers, not those of ky's Request.
    const sent = record
      ? { ...request, headers: { ...request.headers, ...record.headers } }
      : request;
    // Only the options this attempt sets: ky merges each one into its defaults on every call.
    const options: Options = {
      method: request.method,
      headers: sent.headers,
      timeout: Math.max(1, Math.min(settings.timeout, Math.ceil(left))),
      // ky hands its fetch the Request it built for the attempt.
      fetch: ((input: Request) => this.#read(call, sent, input, read)) as typeof fetch,
    };
    if (request.body !== undefined) options.body = request.body;
    if (settings.signal) options.signal = settings.signal;
    const send = () => this.#ky(request.url, options);
    let outcome: AttemptOutcome;
    try {
      const response = await (record ? record.run(send) : send());
      // ky resolves only with what its fetch returned: `read` is set.
      const { head, text } = read as { head: HttpResponseHead; text: string };
      outcome = { response, head, text };
      const { status } = response;
      note(call, status >= 400 ? 'warn' : 'info', `← ${status}`, attempt, {
        status,
        durationMs: Math.round(now() - started),
        requestId: call.requestId,
      });
    } catch (thrown) {
      outcome = { thrown };
      if (!(thrown instanceof UnusableResponse)) lost(call, attempt, started, thrown);
    }
    endAttempt(record, outcome);
    return outcome;
  }

  /**
   * Sends the attempt `input` (ky's Request for it) and reads the whole response.
   *
   * @throws what the sender reports (transport/sender.ts); {@link UnusableResponse} for a status
   *   or a body the SDK cannot use
   */
  async #read(
    call: CallState,
    sent: BuiltRequest,
    input: Request,
    read: { head?: HttpResponseHead; text?: string },
  ): Promise<Response> {
    const head = await this.#send(sent, input.signal, input);
    call.requestId = head.headers.get('x-request-id');
    const { status } = head;
    // A browser hides a redirect it was told not to follow behind an empty `opaqueredirect`, of
    // status 0: the interpretation makes it a RedirectError.
    if (status === 0) {
      read.text = '';
      read.head = head;
      return head.response;
    }
    if (status < 200 || status > 599) {
      head.discard();
      throw new UnusableResponse(head, `HTTP status ${status} is not one the service answers with`);
    }
    try {
      read.text = utf8.decode(await head.read(MAX_RESPONSE_BYTES));
      read.head = head;
      return head.response;
    } catch (error) {
      if (error instanceof UnusableBody) throw new UnusableResponse(head, error.message);
      throw error;
    }
  }
}

// One decoder for every body: without `stream`, each decode() stands alone.
const utf8 = new TextDecoder();

/** Logs and records the end of a failed call; returns its error, to throw. */
function fail(
  call: CallState,
  operation: OperationRecord | undefined,
  error: SecretsVaultError,
  outcome: AttemptOutcome,
): SecretsVaultError {
  note(call, 'error', `${error.name}:`, call.attempts, {
    reason: error.name,
    cause: causeOf('thrown' in outcome ? outcome.thrown : error),
    requestId: detailsOf(call).requestId,
    ...('status' in error && typeof error.status === 'number' ? { status: error.status } : {}),
  });
  operation?.end({
    attempts: call.attempts,
    errorType: error.name,
    errorMessage: error.message,
  });
  return error;
}

/** Ends an attempt's telemetry record with what came of it. */
function endAttempt(record: AttemptRecord | undefined, outcome: AttemptOutcome): void {
  if (record === undefined) return;
  if ('thrown' in outcome) {
    const { thrown } = outcome;
    const status = thrown instanceof UnusableResponse ? thrown.head.status : undefined;
    record.end({ status, errorType: causeOf(thrown) });
    return;
  }
  const { status } = outcome.response;
  record.end({ status, errorType: status >= 400 || status === 0 ? String(status) : undefined });
}

/**
 * Waits `ms`, unless `signal` aborts first or `deadline` (a {@link now} instant) comes first:
 * resolves to what ended the wait. The loop asks only with a signal that has not fired (one
 * that fires from then on ends the wait; one a logger fired in between, the next attempt).
 */
function sleep(
  ms: number,
  signal: AbortSignal | undefined,
  deadline: number,
): Promise<'slept' | 'aborted' | 'deadline'> {
  const until = Math.min(ms, deadline - now());
  return new Promise((resolve) => {
    const done = (how: 'slept' | 'aborted' | 'deadline') => {
      cancel();
      signal?.removeEventListener('abort', onAbort);
      resolve(how);
    };
    const onAbort = () => done('aborted');
    const cancel = afterMs(until, () => done(until < ms ? 'deadline' : 'slept'));
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Logs an attempt that ended without a whole response. */
function lost(call: CallState, attempt: number, started: number, error: unknown): void {
  const what = error instanceof BodyCutOff ? 'body cut off' : 'no response';
  note(
    call,
    'warn',
    '✕',
    attempt,
    {
      durationMs: Math.round(now() - started),
      reason: error instanceof Error ? error.name : 'Error',
      cause: causeOf(error),
    },
    `: ${what}`,
  );
}
