/**
 * Cold start, ky alone: the same work as raw-job.js through ky.
 */
import ky from 'ky';

const { BENCH_BASE_URL, BENCH_TOKEN, BENCH_VAULT_ID } = process.env;
/** @type {{ data: Array<{ name: string, value: Record<string, string> }> }} */
const body = await ky
  .get(`${BENCH_BASE_URL}/v1/vaults/${BENCH_VAULT_ID}/secrets/values`, {
    headers: { Authorization: `Bearer ${BENCH_TOKEN}` },
  })
  .json();
const config = Object.fromEntries(body.data.map((secret) => [secret.name, secret.value]));
if (Object.keys(config).length !== 500) throw new Error('expected 500 secrets');
