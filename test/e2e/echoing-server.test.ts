/**
 * A server that echoes what it was sent into the parts of a response the SDK passes on: the
 * `X-Request-Id` that every log record and error carries, and the names of response headers an
 * error keeps. The token and the secret value sent must reach no log record, no error, and no
 * line the `secrets-vault` command prints, however the server escaped them.
 */
import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import {
  APIError,
  type LogFields,
  type Logger,
  ResponseValidationError,
  SecretsVault,
} from '../../src/index.js';
import { finished, useCommand } from '../cli/harness.js';
import { rejectionOf } from '../rejection.js';
import {
  type ScriptedServer,
  secretData,
  sendJson,
  serveScript,
  success,
} from './scripted-server.js';

const TOKEN = 'sv_live_token_echoed_back_4b1d9e';
const VALUE = 'correct-horse-battery-staple';

/** Every form in which an echoed string may come back. */
function formsOf(text: string): string[] {
  return [text, JSON.stringify(text).slice(1, -1), encodeURIComponent(text), text.toLowerCase()];
}

function expectNoSecret(printed: string): void {
  for (const secret of [TOKEN, VALUE]) {
    for (const form of formsOf(secret)) expect(printed).not.toContain(form);
  }
}

/**
 * The headers of an echoing server: the request's `Authorization` in the request id (as
 * `req-Bearer …`), and the token and the value sent in header names.
 */
function echoes(authorization: string | undefined, body: string): Record<string, string> {
  const value = body.includes(VALUE) ? VALUE : 'none';
  return {
    'X-Request-Id': `req-${authorization ?? ''} ${encodeURIComponent(body)}`,
    [`x-echo-${(authorization ?? '').replace('Bearer ', '')}`]: '1',
    [`x-value-${value}`]: '1',
  };
}

function recordingLogger(): { logger: Logger; printed: () => string; count: () => number } {
  const records: { level: string; message: string; fields: LogFields }[] = [];
  const record =
    (level: string) =>
    (message: string, fields: LogFields): void => {
      records.push({ level, message, fields });
    };
  return {
    logger: {
      debug: record('debug'),
      info: record('info'),
      warn: record('warn'),
      error: record('error'),
    },
    printed: () => JSON.stringify(records) + inspect(records, { depth: Number.POSITIVE_INFINITY }),
    count: () => records.length,
  };
}

const servers: ScriptedServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function echoingServer(
  answer: (index: number) => { status: number; body: unknown },
): Promise<ScriptedServer> {
  const server = await serveScript((request, response, index) => {
    const { status, body } = answer(index);
    sendJson(response, status, body, echoes(request.headers.authorization, request.body));
  });
  servers.push(server);
  return server;
}

const UNAVAILABLE = {
  statusCode: 503,
  errorCode: 'unavailable',
  message: 'try later',
  data: null,
};

describe('a server that echoes the token and the value sent', () => {
  it('reaches no log record of any level, through retries to a failure', async () => {
    const server = await echoingServer(() => ({ status: 503, body: UNAVAILABLE }));
    const { logger, printed, count } = recordingLogger();
    const client = new SecretsVault({
      baseUrl: server.url,
      token: TOKEN,
      logger,
      logLevel: 'debug',
      maxRetries: 1,
    });
    const error = await rejectionOf(
      client.secrets.create('vlt_1', { name: 'db', value: { password: VALUE } }),
    );

    expect(error).toBeInstanceOf(APIError);
    expect(server.requests).toHaveLength(2);
    // The server did echo both: the test would see them if the SDK passed them on.
    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(count()).toBeGreaterThanOrEqual(5);
    expectNoSecret(printed());
    expect(printed()).toContain('[REDACTED]');
  });

  it('reaches no log record of a success', async () => {
    const server = await echoingServer(() => ({ status: 200, body: success(secretData()) }));
    const { logger, printed } = recordingLogger();
    const client = new SecretsVault({ baseUrl: server.url, token: TOKEN, logger });
    await client.secrets.create('vlt_1', { name: 'db', value: { password: VALUE } });
    expectNoSecret(printed());
  });

  it('reaches no part of an API error: request id, header names and values', async () => {
    const server = await echoingServer(() => ({ status: 503, body: UNAVAILABLE }));
    const client = new SecretsVault({ baseUrl: server.url, token: TOKEN, maxRetries: 0 });
    const error = await rejectionOf(
      client.secrets.create('vlt_1', { name: 'db', value: { password: VALUE } }),
    );

    expect(error).toBeInstanceOf(APIError);
    const apiError = error as APIError;
    expect(apiError.requestId).toContain('[REDACTED]');
    // The echoing headers are still there, under names that no longer hold what was sent.
    expect([...apiError.headers.keys()].filter((name) => name.startsWith('x-echo-'))).toEqual([
      'x-echo-redacted',
    ]);
    expect([...apiError.headers.keys()]).toContain('x-value-redacted');
    expectNoSecret(
      inspect(error, { depth: Number.POSITIVE_INFINITY }) +
        JSON.stringify([...apiError.headers]) +
        String(apiError.stack),
    );
  });

  it('reaches no part of a response validation error', async () => {
    const server = await echoingServer(() => ({ status: 200, body: success({ id: 42 }) }));
    const client = new SecretsVault({ baseUrl: server.url, token: TOKEN });
    const error = await rejectionOf(
      client.secrets.create('vlt_1', { name: 'db', value: { password: VALUE } }),
    );

    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as ResponseValidationError).requestId).toContain('[REDACTED]');
    expectNoSecret(
      inspect(error, { depth: Number.POSITIVE_INFINITY }) + String((error as Error).stack),
    );
  });
});

describe('the command against a server that echoes its token', () => {
  const command = useCommand();

  it('prints no trace of the token in its log lines or its message', async () => {
    const server = await serveScript((request, response) => {
      sendJson(response, 503, UNAVAILABLE, echoes(request.headers.authorization, request.body));
    });
    servers.push(server);
    const result = await finished(
      command.start(['ls', '--vault', 'vlt_1', '--wait', '1s'], {
        SECRETS_VAULT_BASE_URL: server.url,
        SECRETS_VAULT_TOKEN: TOKEN,
        SECRETS_VAULT_LOG: 'debug',
      }),
    );

    expect(result.code).toBe(75);
    expect(server.requests.length).toBeGreaterThanOrEqual(2);
    expect(result.stderr).toContain('req-');
    expect(result.stderr).toContain('[REDACTED]');
    expectNoSecret(result.stdout + result.stderr);
  });
});
