/**
 * Cold start, raw fetch: the same work as sdk-job.js by hand, one GET of the values endpoint,
 * JSON.parse, and a record keyed by secret name.
 */
const { BENCH_BASE_URL, BENCH_TOKEN, BENCH_VAULT_ID } = process.env;
const response = await fetch(`${BENCH_BASE_URL}/v1/vaults/${BENCH_VAULT_ID}/secrets/values`, {
  headers: { Accept: 'application/json', Authorization: `Bearer ${BENCH_TOKEN}` },
});
if (!response.ok) throw new Error(`HTTP ${response.status}`);
/** @type {{ data: Array<{ name: string, value: Record<string, string> }> }} */
const body = JSON.parse(await response.text());
const config = Object.fromEntries(body.data.map((secret) => [secret.name, secret.value]));
if (Object.keys(config).length !== 500) throw new Error('expected 500 secrets');
