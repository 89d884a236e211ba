/**
 * How a failed or malformed response becomes an error, through real calls: the class by
 * errorCode then status, the fields an operator needs, and typed errors (never a TypeError) for
 * responses that are not the contract's envelope.
 */
import { HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import {
  APIError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  IdempotencyInProgressError,
  IdempotencyKeyReuseError,
  InternalServerError,
  InvalidCursorError,
  NotFoundError,
  PayloadTooLargeError,
  PermissionDeniedError,
  RateLimitError,
  ResponseValidationError,
  SecretsVaultError,
  UnprocessableEntityError,
} from '../../src/index.js';
import { createClient, fail, ok, route, serviceHeaders, vault } from '../helpers.js';
import { rejectionOf } from '../rejection.js';

describe('errors chosen by errorCode, then status', () => {
  it.each([
    [400, 'bad_request', BadRequestError],
    [400, 'invalid_cursor', InvalidCursorError],
    [401, 'unauthorized', AuthenticationError],
    [403, 'forbidden', PermissionDeniedError],
    [404, 'not_found', NotFoundError],
    [409, 'conflict', ConflictError],
    [409, 'idempotency_in_progress', IdempotencyInProgressError],
    [413, 'payload_too_large', PayloadTooLargeError],
    [422, 'validation_error', UnprocessableEntityError],
    [422, 'idempotency_key_reuse', IdempotencyKeyReuseError],
    [429, 'rate_limited', RateLimitError],
    [500, 'internal_error', InternalServerError],
    [502, 'bad_gateway', InternalServerError],
    [503, 'unavailable', InternalServerError],
    [599, 'odd', InternalServerError],
    [400, 'brand_new_code', BadRequestError],
    [404, 'gone_elsewhere', NotFoundError],
    [418, 'teapot', APIError],
    [451, 'legal', APIError],
    [500, 'invalid_cursor', InternalServerError],
    [404, 'idempotency_key_reuse', NotFoundError],
  ] as const)('%i %s → %o', async (status, code, ErrorClass) => {
    route('get', '/vaults/:id', () => fail(status, code, `message for ${code}`));
    const error = await rejectionOf(createClient().vaults.get('vlt_1'));

    expect(error).toBeInstanceOf(ErrorClass);
    expect((error as Error).constructor).toBe(ErrorClass);
    expect(error).toBeInstanceOf(APIError);
    expect(error).toBeInstanceOf(SecretsVaultError);
    const apiError = error as APIError;
    expect(apiError.name).toBe(ErrorClass.name);
    expect(apiError.status).toBe(status);
    expect(apiError.code).toBe(code);
    expect(apiError.message).toBe(`message for ${code}`);
    expect(apiError.requestId).toMatch(/^req_[0-9a-f-]{36}$/);
    expect(apiError.requestId).toBe(apiError.headers.get('x-request-id'));
    expect(apiError.attempts).toBe(1);
  });

  it('reads Retry-After as seconds or as an HTTP date on RateLimitError', async () => {
    const client = createClient();
    route('get', '/org', () => fail(429, 'rate_limited', 'slow', { 'Retry-After': '7' }));
    expect(((await rejectionOf(client.org.get())) as RateLimitError).retryAfter).toBe(7);

    const date = new Date(Date.now() + 30_000).toUTCString();
    route('get', '/org', () => fail(429, 'rate_limited', 'slow', { 'Retry-After': date }));
    const fromDate = ((await rejectionOf(client.org.get())) as RateLimitError).retryAfter;
    expect(fromDate).toBeGreaterThanOrEqual(28);
    expect(fromDate).toBeLessThanOrEqual(31);

    route('get', '/org', () => fail(429, 'rate_limited', 'slow'));
    expect(((await rejectionOf(client.org.get())) as RateLimitError).retryAfter).toBeNull();
  });
});

const MARKER = 'BODY-MARKER-7c1d';

function raw(status: number, body: string, contentType = 'application/json'): Response {
  return new HttpResponse(body, {
    status,
    headers: serviceHeaders({ 'Content-Type': contentType }),
  });
}

describe('responses that are not the envelope', () => {
  const hostile: Array<[string, () => Response, new (...args: never[]) => Error, number]> = [
    [
      'an HTML 502 page from a proxy',
      () => raw(502, `<html><body>${MARKER} Bad Gateway</body></html>`, 'text/html'),
      InternalServerError,
      502,
    ],
    ['a plain-text 404', () => raw(404, `${MARKER} not here`, 'text/plain'), NotFoundError, 404],
    [
      'JSON that is not the envelope on a 500',
      () => raw(500, JSON.stringify({ oops: MARKER })),
      InternalServerError,
      500,
    ],
    [
      'truncated JSON on a 200',
      () => raw(200, `{"statusCode":200,"data":{"id":"${MARKER}`),
      ResponseValidationError,
      200,
    ],
    [
      'JSON that is not the envelope on a 200',
      () => raw(200, JSON.stringify({ id: MARKER })),
      ResponseValidationError,
      200,
    ],
    [
      'a success envelope with errorCode set',
      () =>
        raw(
          200,
          JSON.stringify({ statusCode: 200, errorCode: 'oops', message: MARKER, data: vault() }),
        ),
      ResponseValidationError,
      200,
    ],
    [
      'an envelope whose statusCode disagrees with HTTP',
      () =>
        raw(
          200,
          JSON.stringify({ statusCode: 201, errorCode: null, message: null, data: vault() }),
        ),
      ResponseValidationError,
      200,
    ],
    [
      'data of the wrong shape',
      () =>
        raw(
          200,
          JSON.stringify({
            statusCode: 200,
            errorCode: null,
            message: null,
            data: { ...vault(), name: undefined, icon_index: MARKER },
          }),
        ),
      ResponseValidationError,
      200,
    ],
    ['an empty 200 body', () => raw(200, ''), ResponseValidationError, 200],
    [
      'a 204 on a route that returns data',
      () => new HttpResponse(null, { status: 204, headers: serviceHeaders() }),
      ResponseValidationError,
      204,
    ],
    [
      'an array where the envelope belongs',
      () => raw(200, JSON.stringify([MARKER])),
      ResponseValidationError,
      200,
    ],
  ];

  it.each(hostile)(
    'turns %s into a typed error without the body',
    async (_name, respond, ErrorClass, status) => {
      route('get', '/vaults/:id', respond);
      const error = await rejectionOf(createClient().vaults.get('vlt_1'));

      expect(error).toBeInstanceOf(ErrorClass);
      expect(error).not.toBeInstanceOf(TypeError);
      expect((error as { status: number }).status).toBe(status);
      expect((error as { requestId: string | null }).requestId).toMatch(/^req_/);
      for (const text of [
        (error as Error).message,
        String(error),
        JSON.stringify(error),
        (error as Error).stack ?? '',
      ]) {
        expect(text).not.toContain(MARKER);
      }
    },
  );

  it('names the failing paths of data that does not fit the schema', async () => {
    route('get', '/vaults/:id', () => ok({ ...vault(), name: undefined, icon_index: 'three' }));
    const error = (await rejectionOf(
      createClient().vaults.get('vlt_1'),
    )) as ResponseValidationError;
    expect(error.issues.map((issue) => issue.path)).toEqual(
      expect.arrayContaining([
        ['data', 'name'],
        ['data', 'icon_index'],
      ]),
    );
  });

  it('requires next_cursor on a list', async () => {
    route('get', '/vaults', () => ok([vault()]));
    const error = (await rejectionOf(createClient().vaults.list())) as ResponseValidationError;
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(error.issues.map((issue) => issue.path)).toContainEqual(['next_cursor']);
  });

  it('accepts a DELETE answered 200 with an envelope as well as 204', async () => {
    route('delete', '/vaults/:id', () => ok(null));
    await expect(createClient().vaults.delete('vlt_1')).resolves.toBeUndefined();
  });
});
