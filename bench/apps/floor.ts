/**
 * The floor of this design for the one-call app: ky and zod/mini alone, with no SDK, making the
 * same call and checking the vault it gets back. No client built on them can weigh less.
 */
import ky from 'ky';
import * as z from 'zod/mini';

const Vault = z.object({
  id: z.string(),
  org_id: z.string(),
  name: z.string(),
  icon_index: z.number(),
  color: z.string(),
  team_id: z.nullable(z.string()),
  role: z.enum(['admin', 'editor', 'member']),
  created_at: z.string(),
});
const body = await ky
  .get(`${location.origin}/api/v1/vaults/vlt_123`, {
    headers: { authorization: 'Bearer sv_browser_token' },
  })
  .json<{ data: unknown }>();
document.title = z.parse(Vault, body.data).name;
