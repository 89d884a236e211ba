/**
 * The one-call app written the smallest documented way to use only vaults: the namespace from
 * its sub-path, `new Vaults(options)`, with an error class from the package root (which must not
 * bring the rest of the client along).
 */
import { NotFoundError } from '@secrets-vault/sdk';
import { Vaults } from '@secrets-vault/sdk/vaults';

const vaults = new Vaults({ baseUrl: `${location.origin}/api`, token: 'sv_browser_token' });
try {
  document.title = (await vaults.get('vlt_123')).name;
} catch (error) {
  document.title = error instanceof NotFoundError ? 'no such vault' : 'failed';
}
