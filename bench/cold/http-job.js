/**
 * Cold start, node:http: the same work as raw-job.js without fetch, so without undici, which
 * Node starts at the first fetch. The floor of a Node job.
 */
import { request } from 'node:http';

const { BENCH_BASE_URL, BENCH_TOKEN, BENCH_VAULT_ID } = process.env;
/** @type {{ data: Array<{ name: string, value: Record<string, string> }> }} */
const body = await new Promise((resolve, reject) => {
  const outgoing = request(
    `${BENCH_BASE_URL}/v1/vaults/${BENCH_VAULT_ID}/secrets/values`,
    { headers: { Accept: 'application/json', Authorization: `Bearer ${BENCH_TOKEN}` } },
    (response) => {
      if (response.statusCode !== 200) reject(new Error(`HTTP ${response.statusCode}`));
      /** @type {Buffer[]} */
      const chunks = [];
      response.on('data', (chunk) => chunks.push(chunk));
      response.once('error', reject);
      response.once('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
    },
  );
  outgoing.once('error', reject);
  outgoing.end();
});
const config = Object.fromEntries(body.data.map((secret) => [secret.name, secret.value]));
if (Object.keys(config).length !== 500) throw new Error('expected 500 secrets');
