/**
 * Raw HTTP access to the mock for its conformance suite: real `fetch`, any method, any body,
 * so tests can send what the SDK would refuse.
 */
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { createVaultMock, type VaultMock } from '../../src/mock/index.js';

export interface Answer {
  status: number;
  headers: Headers;
  /** The parsed JSON body, or `undefined` when the body is empty. */
  body: Envelope | undefined;
  text: string;
}

export interface Envelope {
  statusCode: number;
  errorCode: string | null;
  message: string | null;
  data: unknown;
  next_cursor?: string | null;
}

export interface Call {
  token?: string | null;
  body?: unknown;
  /** A raw body sent as is (overrides `body`). */
  raw?: string;
  headers?: Record<string, string>;
}

/** Starts an MSW server with a fresh mock for the calling test file. */
export function useMock(): VaultMock {
  const mock = createVaultMock();
  const server = setupServer(...mock.handlers);
  beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
  beforeEach(() => mock.reset());
  afterAll(() => server.close());
  return mock;
}

/** Sends one request to the mock as the owner unless another token (or none) is given. */
export async function api(
  mock: VaultMock,
  method: string,
  path: string,
  call: Call = {},
): Promise<Answer> {
  const headers = new Headers(call.headers);
  const token = call.token === undefined ? mock.principals.owner.token : call.token;
  if (token !== null) headers.set('Authorization', `Bearer ${token}`);
  let body: string | undefined = call.raw;
  if (body === undefined && call.body !== undefined) body = JSON.stringify(call.body);
  if (body !== undefined && !headers.has('Content-Type'))
    headers.set('Content-Type', 'application/json');
  const response = await fetch(`${mock.baseUrl}${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body }),
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: text === '' ? undefined : (JSON.parse(text) as Envelope),
    text,
  };
}

/** The `data` of a success, typed loosely for assertions. */
export function data<T = Record<string, unknown>>(answer: Answer): T {
  return answer.body?.data as T;
}

/** Creates a resource and returns its id, failing loudly when the mock refuses. */
export async function create(
  mock: VaultMock,
  path: string,
  body: unknown,
  token?: string,
): Promise<string> {
  const answer = await api(mock, 'POST', path, { body, ...(token === undefined ? {} : { token }) });
  if (answer.status !== 201)
    throw new Error(`POST ${path} answered ${answer.status}: ${answer.text}`);
  return data<{ id: string }>(answer).id;
}
