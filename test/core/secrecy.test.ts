/**
 * A token or a secret value never appears in an error: not in its message, String(error),
 * JSON.stringify(error), its stack, util.inspect(error), nor in util.inspect(client).
 */
import { inspect } from 'node:util';
import { delay, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { SecretsVault, SecretsVaultError } from '../../src/index.js';
import { BASE_URL, createClient, fail, ok, route, secret, TOKEN } from '../helpers.js';
import { rejectionOf } from '../rejection.js';

const VALUE = 'hunter2-very-secret-value';
const OTHER_VALUE = 'another-secret-string-99';

function renderings(error: unknown): string[] {
  const asError = error as Error;
  return [
    asError.message,
    String(error),
    JSON.stringify(error),
    asError.stack ?? '',
    inspect(error, { depth: 10, showHidden: true }),
  ];
}

function expectNoSecrets(
  error: unknown,
  secrets: readonly string[] = [TOKEN, VALUE, OTHER_VALUE],
): void {
  expect(error).toBeInstanceOf(SecretsVaultError);
  for (const text of renderings(error)) {
    for (const secretText of secrets) expect(text).not.toContain(secretText);
  }
}

const echo = (status: number, code: string) => () =>
  fail(status, code, `rejected token ${TOKEN} and value ${VALUE} / ${OTHER_VALUE}`);

describe('no token or secret value in errors', () => {
  it.each([
    [401, 'unauthorized'],
    [422, 'validation_error'],
    [500, 'internal_error'],
  ])(
    'scrubs a %i message that echoes the token and the values sent by a create',
    async (status, code) => {
      route('post', '/vaults/:id/secrets', echo(status, code));
      const error = await rejectionOf(
        createClient().secrets.create('vlt_1', {
          name: 'db',
          value: { password: VALUE, api: OTHER_VALUE },
        }),
      );
      expectNoSecrets(error);
      expect((error as Error).message).toContain('[REDACTED]');
    },
  );

  it('scrubs the values sent by an update', async () => {
    route('patch', '/secrets/:id', echo(422, 'validation_error'));
    const error = await rejectionOf(
      createClient().secrets.update('sec_1', { value: { password: VALUE } }),
    );
    expectNoSecrets(error, [TOKEN, VALUE]);
  });

  it('keeps connection errors and timeouts clean', async () => {
    route('post', '/vaults/:id/secrets', () => HttpResponse.error());
    expectNoSecrets(
      await rejectionOf(
        createClient().secrets.create('vlt_1', { name: 'db', value: { password: VALUE } }),
      ),
    );

    route('get', '/secrets/:id/value', async () => {
      await delay(500);
      return ok({ ...secret(), value: { password: VALUE } });
    });
    expectNoSecrets(await rejectionOf(createClient({ timeout: 20 }).secrets.getValue('sec_1')));
  });

  it('keeps validation errors of bad input clean', async () => {
    const error = await rejectionOf(
      createClient().secrets.create('vlt_1', {
        name: 'db',
        value: { password: VALUE, port: 5432 as unknown as string },
      }),
    );
    expectNoSecrets(error);
  });

  it('keeps validation errors of a malformed value response clean', async () => {
    route('get', '/secrets/:id/value', () =>
      ok({ ...secret(), value: { password: 42, token: OTHER_VALUE, nested: { deep: VALUE } } }),
    );
    expectNoSecrets(await rejectionOf(createClient().secrets.getValue('sec_1')));
  });

  it('keeps construction errors clean of an invalid token', () => {
    const token = 'secret token with spaces';
    let error: unknown;
    try {
      new SecretsVault({ baseUrl: BASE_URL, token });
    } catch (caught) {
      error = caught;
    }
    expectNoSecrets(error, [token]);
  });

  it('holds no request, headers or body on an error', async () => {
    route('post', '/vaults/:id/secrets', echo(500, 'internal_error'));
    const error = await rejectionOf(
      createClient().secrets.create('vlt_1', { name: 'db', value: { password: VALUE } }),
    );
    for (const value of Object.values(error as object)) {
      expect(value).not.toBeInstanceOf(Request);
      if (value instanceof Headers) expect(value.has('authorization')).toBe(false);
    }
    expect((error as Error).cause).toBeUndefined();
  });

  it('never shows the token when the client is printed', () => {
    const client = createClient();
    expect(inspect(client, { depth: 10, showHidden: true })).not.toContain(TOKEN);
    expect(JSON.stringify(client)).not.toContain(TOKEN);
  });
});
