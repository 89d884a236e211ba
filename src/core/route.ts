/**
 * Building a request from a route: the URL with its encoded ids, the query, the JSON body, the
 * headers and the idempotency key, every input checked before anything is sent.
 */
import type * as z from 'zod/mini';
import type { Expected } from './envelope.js';
import { RequestValidationError, type ValidationIssue } from './errors.js';
import { resolveIdempotencyKey } from './idempotency.js';
import {
  type CallSettings,
  type ClientConfig,
  type RequestOptions,
  resolveCallSettings,
} from './options.js';
import { check, MAX_BODY_BYTES } from './validation.js';

/** The HTTP methods the service uses. */
export type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** The `{name}` placeholders of a path template, as a union of names. */
export type PathParamNames<Path extends string> =
  Path extends `${string}{${infer Name}}${infer Rest}` ? Name | PathParamNames<Rest> : never;

/**
 * The path parameters a route needs, typed from its template, so a placeholder that no
 * parameter fills (or a parameter no placeholder names) is a compile error.
 */
export type PathParamsOf<Path extends string> = [PathParamNames<Path>] extends [never]
  ? { readonly pathParams?: undefined }
  : { readonly pathParams: { readonly [Name in PathParamNames<Path>]: string } };

/** A value the caller gave and the schema it must satisfy. */
export interface Checked {
  readonly value: unknown;
  readonly schema: z.ZodMiniType<object>;
}

/** What a resource method says about one endpoint, apart from its path. */
interface RouteBase<T> {
  /** The method as the user calls it (`vaults.get`, `secrets.load`), for telemetry. */
  readonly operation: string;
  readonly method: Method;
  /** The caller's query parameters and the schema they must satisfy. */
  readonly query?: Checked;
  /** The caller's body and the schema it must satisfy. */
  readonly body?: Checked;
  /** Resource-creating POSTs carry an `Idempotency-Key`, the same on every retry. */
  readonly idempotent?: boolean;
  /** Strings of the request that must not appear in an error (secret values). */
  readonly sensitive?: readonly string[];
  readonly expected: Expected<T>;
  readonly options?: RequestOptions | undefined;
  /**
   * A startup call: milliseconds to keep retrying an unavailable service, or `'default'` for the
   * client's wait. Absent for every other call (the ordinary retry policy).
   */
  readonly wait?: number | 'default' | undefined;
}

/** Everything a resource method says about one endpoint, its path parameters typed by its path. */
export type RouteSpec<Path extends string, T> = RouteBase<T> &
  PathParamsOf<Path> & {
    /** Path under `/v1` with `{name}` placeholders, such as `/vaults/{vaultId}/members`. */
    readonly path: Path;
  };

/** A route whose path is only known to be a string: what the request builder works on. */
export interface AnyRoute<T = unknown> extends RouteBase<T> {
  readonly path: string;
  readonly pathParams?: Readonly<Record<string, unknown>> | undefined;
}

/** A request ready to send, and what an error about it must say. */
export interface BuiltRequest {
  readonly method: Method;
  /** Absolute URL, query included. */
  readonly url: string;
  /** The route template under the API root, such as `/v1/vaults/{vaultId}`: ids left out. */
  readonly template: string;
  /** Path and query as sent, for logs. */
  readonly target: string;
  /** Names in lower case. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | undefined;
  readonly idempotencyKey: string | null;
  readonly settings: CallSettings;
  /** The token and secret values sent, to scrub from anything the server says back. */
  readonly sensitive: readonly string[];
}

/**
 * Builds the request of one call (one page of a list when `cursor` is given).
 *
 * @throws {RequestValidationError} listing every input problem; nothing has been sent
 */
export function buildRequest(config: ClientConfig, spec: AnyRoute, cursor?: string): BuiltRequest {
  const options = spec.options ?? {};
  const issues: ValidationIssue[] = [];
  const path = fillPath(spec.path, spec.pathParams, issues);
  const query = validated(spec.query, issues);
  const queryString =
    query === undefined && cursor === undefined
      ? ''
      : toSearchParams(cursor === undefined ? query : { ...query, cursor }, issues).toString();
  const body = validated(spec.body, issues);
  const settings =
    spec.options === undefined && spec.wait === undefined
      ? defaultSettings(config)
      : resolveCallSettings(config, options, issues, spec.wait);
  let serializedBody: string | undefined;
  if (body !== undefined && issues.length === 0) {
    serializedBody = JSON.stringify(body);
    // A UTF-16 code unit is at most 3 bytes of UTF-8: only a long body needs encoding to count.
    if (
      serializedBody.length * 3 > MAX_BODY_BYTES &&
      new TextEncoder().encode(serializedBody).byteLength > MAX_BODY_BYTES
    ) {
      issues.push({ path: [], message: `body must be at most ${MAX_BODY_BYTES} bytes of JSON` });
    }
  }
  let idempotencyKey: string | null = null;
  if (spec.idempotent) {
    try {
      idempotencyKey = resolveIdempotencyKey(options.idempotencyKey);
    } catch (error) {
      if (!(error instanceof RequestValidationError)) throw error;
      issues.push(...error.issues);
    }
  }
  const template = `/v1${spec.path}`;
  if (issues.length > 0) {
    throw new RequestValidationError(issues, {
      method: spec.method,
      path: template,
      idempotencyKey,
    });
  }
  let headers = settings.headers;
  if (idempotencyKey !== null || serializedBody !== undefined) {
    const own: Record<string, string> = { ...headers };
    if (idempotencyKey !== null) own['idempotency-key'] = idempotencyKey;
    if (serializedBody !== undefined) own['content-type'] = 'application/json';
    headers = own;
  }
  const target = `${config.apiPath}${path}${queryString ? `?${queryString}` : ''}`;
  return {
    method: spec.method,
    url: `${config.apiRoot}${path}${queryString ? `?${queryString}` : ''}`,
    template,
    target,
    headers,
    body: serializedBody,
    idempotencyKey,
    settings,
    sensitive: [config.token, ...(spec.sensitive ?? [])],
  };
}

// The settings of a call without options, worked out once per client: they are the client's.
const defaults = new WeakMap<ClientConfig, CallSettings>();

function defaultSettings(config: ClientConfig): CallSettings {
  let settings = defaults.get(config);
  if (settings === undefined) {
    settings = resolveCallSettings(config, {}, []);
    defaults.set(config, settings);
  }
  return settings;
}

// A lone surrogate cannot be percent-encoded (encodeURIComponent throws URIError) and
// URLSearchParams silently turns it into U+FFFD, so the server would see another id or cursor.
const LONE_SURROGATE = /\p{Surrogate}/u;

// Each route's template split once into its text and its ids' names (`['/vaults/', 'vaultId',
// '']`): a fixed set, one entry per route.
const templates = new Map<string, string[]>();

function fillPath(
  template: string,
  params: Readonly<Record<string, unknown>> | undefined,
  issues: ValidationIssue[],
): string {
  let parts = templates.get(template);
  if (parts === undefined) {
    parts = template.split(/\{(\w+)\}/);
    templates.set(template, parts);
  }
  let path = '';
  for (const [index, part] of parts.entries()) {
    path += index % 2 === 0 ? part : encodeId(part, params?.[part], issues);
  }
  return path;
}

function encodeId(name: string, value: unknown, issues: ValidationIssue[]): string {
  // Every id is one path segment: encoded so `a/b?x` stays inside it, and never `.` or `..`,
  // which URL parsing would resolve into another route even when percent-encoded.
  if (typeof value !== 'string' || value === '' || value === '.' || value === '..') {
    issues.push({ path: [name], message: 'must be a non-empty id other than "." or ".."' });
    return '_';
  }
  try {
    return encodeURIComponent(value);
  } catch {
    // URIError: the one string encodeURIComponent refuses has a lone surrogate.
    issues.push({
      path: [name],
      message: 'must be a well-formed string (it has a lone surrogate)',
    });
    return '_';
  }
}

function validated(input: Checked | undefined, issues: ValidationIssue[]): object | undefined {
  if (input === undefined) return undefined;
  const result = check(input.schema, input.value);
  if (result.ok) return result.value;
  issues.push(...result.issues);
  return undefined;
}

function toSearchParams(query: object | undefined, issues: ValidationIssue[]): URLSearchParams {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value === undefined) continue;
    const text = String(value);
    if (LONE_SURROGATE.test(text)) {
      issues.push({
        path: [name],
        message: 'must be a well-formed string (it has a lone surrogate)',
      });
      continue;
    }
    // URLSearchParams percent-encodes `+ / = %`, so an opaque cursor comes back byte for byte.
    params.set(name, text);
  }
  return params;
}
