/**
 * The baseline of the job figures (bench/job.ts): what a hand-written job does instead of
 * `secrets-vault run`, and nothing more.
 *
 *   node bench/job-raw.js <vaultId> <command> [args...]
 *
 * Fetches the vault's values with `fetch` (base URL and token from SECRETS_VAULT_BASE_URL and
 * SECRETS_VAULT_TOKEN, as the command reads them), names the variables as `run` does
 * (`service-0001` + `password` → SERVICE_0001_PASSWORD; a variable already set wins), and runs the
 * command without a shell, as its parent, exiting with its code (128 + the signal number when a
 * signal ended it). No checks, no retries, no signal passing: the floor of a job that stays the
 * command's parent. Plain JavaScript, as a deployed job runs.
 */
import { spawn } from 'node:child_process';
import { constants } from 'node:os';

const { SECRETS_VAULT_BASE_URL, SECRETS_VAULT_TOKEN, ...jobEnv } = process.env;
const [vaultId = '', command = '', ...args] = process.argv.slice(2);
const response = await fetch(
  `${SECRETS_VAULT_BASE_URL}/v1/vaults/${encodeURIComponent(vaultId)}/secrets/values`,
  { headers: { Accept: 'application/json', Authorization: `Bearer ${SECRETS_VAULT_TOKEN}` } },
);
if (!response.ok) throw new Error(`HTTP ${response.status}`);
/** @type {{ data: Array<{ name: string, value: Record<string, unknown> }> }} */
const body = JSON.parse(await response.text());
/** @param {string} text */
const variablePart = (text) => text.toUpperCase().replace(/[^A-Z0-9]+/g, '_');
/** @type {Record<string, string | undefined>} */
const env = { ...jobEnv };
for (const { name, value } of body.data) {
  for (const [key, item] of Object.entries(value)) {
    env[`${variablePart(name)}_${variablePart(key)}`] ??= String(item);
  }
}
const child = spawn(command, args, { stdio: 'inherit', env });
child.once('exit', (code, signal) => {
  process.exit(signal === null ? (code ?? 1) : 128 + (constants.signals[signal] ?? 0));
});
