/**
 * The command's log lines (`SECRETS_VAULT_LOG`): one logfmt line per record on stderr, whatever
 * a value holds, and each failed attempt naming what it failed on. The cause reaches a library
 * user's logger too, as one more field of the record.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LogFields, type Logger, SecretsVault } from '../../src/index.js';
import { useCommand } from './harness.js';

const command = useCommand();
const { mock } = command;

/** A logfmt line: `key=value` pairs, a value bare or double-quoted with `\` escapes. */
const LOGFMT_LINE =
  /^level=\w+ msg="(?:[^"\\]|\\.)*"(?: [\w.-]+=(?:"(?:[^"\\]|\\.)*"|[^\s"=\\]+))*$/;

/** The pairs of a logfmt line, values unquoted (`\"`, `\\` and `\n` read back). */
function parseLogfmt(line: string): Record<string, string> {
  const record: Record<string, string> = {};
  for (const [, key = '', quoted, bare] of line.matchAll(
    /([\w.-]+)=(?:"((?:[^"\\]|\\.)*)"|(\S+))/g,
  )) {
    record[key] =
      quoted === undefined
        ? (bare ?? '')
        : quoted.replace(/\\(.)/g, (_match, char: string) => (char === 'n' ? '\n' : char));
  }
  return record;
}

/** The log lines of `stderr`: every line but the command's own `secrets-vault: …`. */
function logLines(stderr: string): string[] {
  return stderr.split('\n').filter((line) => line !== '' && !line.startsWith('secrets-vault: '));
}

describe('the command with SECRETS_VAULT_LOG', () => {
  it('writes one logfmt line per record, each failed attempt naming its cause', async () => {
    const result = await command.run(['ls', '--vault', 'vlt_any', '--wait', '0'], {
      SECRETS_VAULT_BASE_URL: `http://127.0.0.1:${command.closedPort}`,
      SECRETS_VAULT_LOG: 'warn',
    });
    expect(result.code).toBe(75);
    const lines = logLines(result.stderr);
    for (const line of lines) expect(line).toMatch(LOGFMT_LINE);
    const records = lines.map(parseLogfmt);
    // Three attempts, each lost, two retries between them, and the call's failure.
    expect(records.map(({ level, msg }) => `${level} ${msg?.split(' ')[0]}`)).toEqual([
      'warn ✕',
      'warn retrying',
      'warn ✕',
      'warn retrying',
      'warn ✕',
      'error APIConnectionError:',
    ]);
    for (const record of records) {
      expect(record.cause).toBe('ECONNREFUSED');
      expect(record.path).toBe('/v1/vaults/vlt_any/secrets/values');
    }
    expect(result.stderr).not.toContain(mock.principals.adminKey.token);
  });

  it('logs a successful load at debug as logfmt, leaving stdout to the values', async () => {
    mock.reset();
    const operator = new SecretsVault({
      baseUrl: command.served.url,
      token: mock.principals.owner.token,
    });
    const vault = await operator.vaults.create({ name: 'job' });
    await operator.secrets.create(vault.id, { name: 'db', value: { password: 'pw-of-the-job' } });
    const result = await command.run(['export', '--vault', vault.id, '--format', 'json'], {
      SECRETS_VAULT_LOG: 'debug',
    });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ DB_PASSWORD: 'pw-of-the-job' });
    const lines = logLines(result.stderr);
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(line).toMatch(LOGFMT_LINE);
    const [sent, answered] = lines.map(parseLogfmt);
    expect(sent).toMatchObject({
      level: 'debug',
      msg: `→ GET /v1/vaults/${vault.id}/secrets/values`,
      method: 'GET',
      attempt: '1',
    });
    expect(answered).toMatchObject({ level: 'info', status: '200' });
    expect(answered?.requestId).toMatch(/^req_/);
    expect(result.stderr).not.toContain('pw-of-the-job');
  });

  describe('against a server whose request ids need quoting', () => {
    const REQUEST_ID = 'req "quoted" \\ back=slash';
    let server: Server;
    let url = '';

    beforeAll(async () => {
      server = createServer((_request, response) => {
        response.writeHead(503, { 'content-type': 'application/json', 'x-request-id': REQUEST_ID });
        response.end('{"statusCode":503,"errorCode":"unavailable","message":"down","data":null}');
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      await new Promise((resolve) => server.close(resolve));
    });

    it('quotes and escapes a value, which reads back as it was sent', async () => {
      const result = await command.run(['ls', '--vault', 'vlt_any', '--wait', '0'], {
        SECRETS_VAULT_BASE_URL: url,
        SECRETS_VAULT_LOG: 'warn',
        SECRETS_VAULT_MAX_RETRIES: '0',
      });
      expect(result.code).toBe(75);
      const lines = logLines(result.stderr);
      expect(lines.length).toBeGreaterThan(0);
      for (const line of lines) expect(line).toMatch(LOGFMT_LINE);
      const answered = lines.map(parseLogfmt).find((record) => record.status === '503');
      expect(answered?.requestId).toBe(REQUEST_ID);
      expect(lines.join('\n')).toContain('requestId="req \\"quoted\\" \\\\ back=slash"');
    });
  });
});

describe('a logger given to the client', () => {
  it('gets the cause of each lost attempt and retry as a field of the record', async () => {
    const records: Array<{ level: string; message: string; fields: LogFields }> = [];
    const record =
      (level: string) =>
      (message: string, fields: LogFields): void => {
        records.push({ level, message, fields });
      };
    const logger: Logger = {
      debug: record('debug'),
      info: record('info'),
      warn: record('warn'),
      error: record('error'),
    };
    const client = new SecretsVault({
      baseUrl: `http://127.0.0.1:${command.closedPort}`,
      token: 'sv_some_token',
      maxRetries: 1,
      logger,
      logLevel: 'warn',
    });
    await expect(client.vaults.list()).rejects.toThrow(/ECONNREFUSED/);
    const failed = records.filter(({ message }) =>
      /^(✕|retrying|APIConnectionError)/.test(message),
    );
    expect(failed.map(({ message }) => message.split(' ')[0])).toEqual([
      '✕',
      'retrying',
      '✕',
      'APIConnectionError:',
    ]);
    for (const { fields } of failed) expect(fields.cause).toBe('ECONNREFUSED');
  });
});
