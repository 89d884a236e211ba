/**
 * A browser app that uses only `client.vaults`: whether the namespaces it never touches
 * (secrets, teams, org, audit) are left out of the bundle.
 */
import { SecretsVault } from '@secrets-vault/sdk';

const client = new SecretsVault({ baseUrl: `${location.origin}/api`, token: 'sv_browser_token' });
const created = await client.vaults.create({ name: 'checkout' });
await client.vaults.update(created.id, { color: '#3366FF' });
for await (const vault of client.vaults.list()) document.body.append(vault.name);
await client.vaults.delete(created.id);
