/**
 * Stocks a fresh mock with what the dashboard shows: seven vaults (more than one page of five,
 * so "Load more" has work to do), secrets in the first, and Grace added to it as a plain member
 * (who may read but not create secrets). It goes through the SDK like any other client, so the
 * same code stocks a mock served over HTTP and one running in a service worker.
 */
import { SecretsVault } from '@secrets-vault/sdk';
import type { MockPrincipals } from '@secrets-vault/sdk/mock';

/** The vault the dashboard's walkthrough opens. */
export const FIRST_VAULT = 'Payments';

/** Stocks the mock at `baseUrl` as the owner; the same sample data each time. */
export async function seedDashboard(baseUrl: string, principals: MockPrincipals): Promise<void> {
  const owner = new SecretsVault({ baseUrl, token: principals.owner.token });
  const others: ReadonlyArray<readonly [name: string, color: string]> = [
    ['Platform', '#22c55e'],
    ['Search', '#a855f7'],
    ['Billing', '#f97316'],
    ['Mobile', '#ef4444'],
    ['Analytics', '#14b8a6'],
    ['Support', '#eab308'],
  ];
  const payments = await owner.vaults.create({ name: FIRST_VAULT, color: '#0ea5e9' });
  for (const [name, color] of others) await owner.vaults.create({ name, color });
  await owner.secrets.create(payments.id, {
    name: 'stripe',
    type: 'api_key',
    value: { api_key: 'sk_test_dashboard_not_real' },
  });
  await owner.secrets.create(payments.id, {
    name: 'database',
    type: 'login',
    value: { username: 'payments', password: 'dashboard-password-not-real' },
  });
  await owner.secrets.create(payments.id, {
    name: 'webhook',
    value: { signing_secret: 'whsec_dashboard_not_real' },
  });
  await owner.vaults.members.create(payments.id, {
    user_id: principals.member.userId ?? '',
    role: 'member',
  });
}
