/**
 * Memory of a long listing, in a fresh process run with --expose-gc:
 *
 *   node --expose-gc bench/memory-job.ts <sdk|raw|ky> <checkpoint,checkpoint,...>
 *
 * Iterates the endless list of secrets one item at a time and, at each checkpoint (an item
 * count), collects garbage and records how far the heap has grown since the start, while the
 * listing is still live. Breaks at the last checkpoint and prints JSON: { "<count>": bytes }.
 * The server's URL comes from BENCH_BASE_URL.
 */

import { SecretsVault } from '@secrets-vault/sdk';
import ky from 'ky';
import { ENDLESS_VAULT_ID, TOKEN } from './fixtures.ts';

const gc = globalThis.gc;
if (gc === undefined) throw new Error('run with node --expose-gc');
const [mode = '', list = ''] = process.argv.slice(2);
const checkpoints = list.split(',').map(Number);
const last = Math.max(...checkpoints);
const baseUrl = process.env.BENCH_BASE_URL ?? '';
const firstUrl = `${baseUrl}/v1/vaults/${ENDLESS_VAULT_ID}/secrets?limit=100`;
const headers = { Accept: 'application/json', Authorization: `Bearer ${TOKEN}` };

interface PageBody {
  data: unknown[];
  next_cursor: string | null;
}

/** Yields the items of the endless list, through the contender named by `mode`. */
function items(): AsyncIterable<unknown> {
  if (mode === 'sdk') {
    const client = new SecretsVault({ baseUrl, token: TOKEN });
    return client.secrets.list(ENDLESS_VAULT_ID, { limit: 100 });
  }
  const api = ky.create({});
  const get =
    mode === 'raw'
      ? async (url: string) => JSON.parse(await (await fetch(url, { headers })).text()) as PageBody
      : (url: string) => api.get(url, { headers }).json<PageBody>();
  return (async function* () {
    let url = firstUrl;
    for (;;) {
      const page = await get(url);
      yield* page.data;
      if (page.next_cursor === null) return;
      url = `${firstUrl}&cursor=${encodeURIComponent(page.next_cursor)}`;
    }
  })();
}

function settledHeap(): number {
  gc?.();
  gc?.();
  return process.memoryUsage().heapUsed;
}

async function iterate(count: number, onItem?: (seen: number) => void): Promise<void> {
  let seen = 0;
  for await (const _item of items()) {
    seen += 1;
    onItem?.(seen);
    if (seen >= count) break;
  }
}

// A listing first, so compiled code and connection pools are in place before the baseline
// (V8's own code and feedback still move heapUsed by up to a few MB; see docs/performance.md).
await iterate(Math.min(10_000, Math.max(1_000, last / 10)));
const baseline = settledHeap();
const growth: Record<string, number> = {};
await iterate(last, (seen) => {
  if (checkpoints.includes(seen)) growth[seen] = settledHeap() - baseline;
});
console.log(JSON.stringify(growth));
