/**
 * A small dashboard on the SDK: connect with a token, page through vaults with "Load more",
 * open a vault to see its secrets (metadata only), reveal one value on demand, create a secret,
 * and show every failure in words. The page calls its own origin; in development Vite's proxy
 * forwards `/v1` to the service (see vite.config.ts), since the service sends no CORS headers.
 */
import { type Page, type Secret, SecretsVault, type Vault } from '@secrets-vault/sdk';
import { describeError } from './describe-error.js';
import './style.css';

const PAGE_SIZE = 5;

function element<T extends HTMLElement>(selector: string): T {
  const found = document.querySelector<T>(selector);
  if (found === null) throw new Error(`The page lacks ${selector}`);
  return found;
}

const tokenInput = element<HTMLInputElement>('#token');
const errorBox = element<HTMLParagraphElement>('#error');
const vaultList = element<HTMLUListElement>('#vaults');
const moreVaults = element<HTMLButtonElement>('#more-vaults');
const vaultPanel = element<HTMLElement>('#vault-panel');
const vaultName = element<HTMLHeadingElement>('#vault-name');
const secretRows = element<HTMLTableSectionElement>('#secrets tbody');
const moreSecrets = element<HTMLButtonElement>('#more-secrets');
const createForm = element<HTMLFormElement>('#create-secret');

let client: SecretsVault | undefined;
let vaultPage: Page<Vault> | undefined;
let secretPage: Page<Secret> | undefined;
let openVault: Vault | undefined;

/** Runs one user action: clears the last error, shows a new one in words, never throws. */
async function act(control: HTMLButtonElement | HTMLFormElement, work: () => Promise<void>) {
  errorBox.hidden = true;
  control.setAttribute('aria-busy', 'true');
  try {
    await work();
  } catch (error) {
    errorBox.textContent = describeError(error);
    errorBox.hidden = false;
  } finally {
    control.removeAttribute('aria-busy');
  }
}

function connected(): SecretsVault {
  if (client === undefined) throw new Error('Not connected');
  return client;
}

function showVaults(page: Page<Vault>) {
  vaultPage = page;
  for (const vault of page.data) {
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'vault';
    button.style.setProperty('--vault-color', vault.color);
    button.textContent = vault.name;
    const role = document.createElement('span');
    role.className = 'role';
    role.textContent = vault.role;
    button.append(role);
    button.addEventListener('click', () => act(button, () => open(vault)));
    const item = document.createElement('li');
    item.append(button);
    vaultList.append(item);
  }
  moreVaults.hidden = !page.hasNextPage();
}

function showSecrets(page: Page<Secret>) {
  secretPage = page;
  for (const secret of page.data) secretRows.append(secretRow(secret));
  moreSecrets.hidden = !page.hasNextPage();
}

function secretRow(secret: Secret): HTMLTableRowElement {
  const row = document.createElement('tr');
  row.dataset.secret = secret.name;
  for (const text of [secret.name, secret.type, secret.created_at.slice(0, 10)]) {
    const cell = document.createElement('td');
    cell.textContent = text;
    row.append(cell);
  }
  const valueCell = document.createElement('td');
  const reveal = document.createElement('button');
  reveal.type = 'button';
  reveal.textContent = 'Reveal';
  const shown = document.createElement('dl');
  shown.className = 'value';
  shown.hidden = true;
  reveal.addEventListener('click', () =>
    act(reveal, async () => {
      if (!shown.hidden) {
        // Hiding drops the value from the page rather than keeping it in a hidden node.
        shown.replaceChildren();
        shown.hidden = true;
        reveal.textContent = 'Reveal';
        return;
      }
      // One value, fetched when asked for and only then: the list above carries no values.
      const { value } = await connected().secrets.getValue(secret.id);
      for (const [key, text] of Object.entries(value)) {
        const term = document.createElement('dt');
        term.textContent = key;
        const detail = document.createElement('dd');
        detail.textContent = text;
        shown.append(term, detail);
      }
      shown.hidden = false;
      reveal.textContent = 'Hide';
    }),
  );
  valueCell.append(reveal, shown);
  row.append(valueCell);
  return row;
}

async function open(vault: Vault) {
  const page = await connected().secrets.list(vault.id, { limit: PAGE_SIZE * 4 });
  openVault = vault;
  vaultName.textContent = vault.name;
  secretRows.replaceChildren();
  showSecrets(page);
  vaultPanel.hidden = false;
}

async function connect(token: string) {
  const candidate = new SecretsVault({ baseUrl: location.origin, token });
  // The first page proves the token before anything is kept.
  const first = await candidate.vaults.list({ limit: PAGE_SIZE });
  client = candidate;
  sessionStorage.setItem('vault-token', token);
  vaultList.replaceChildren();
  vaultPanel.hidden = true;
  showVaults(first);
}

const connectForm = element<HTMLFormElement>('#connect');
connectForm.addEventListener('submit', (event) => {
  event.preventDefault();
  void act(connectForm, () => connect(tokenInput.value.trim()));
});

moreVaults.addEventListener('click', () =>
  act(moreVaults, async () => {
    if (vaultPage?.hasNextPage()) showVaults(await vaultPage.getNextPage());
  }),
);

moreSecrets.addEventListener('click', () =>
  act(moreSecrets, async () => {
    if (secretPage?.hasNextPage()) showSecrets(await secretPage.getNextPage());
  }),
);

createForm.addEventListener('submit', (event) => {
  event.preventDefault();
  void act(createForm, async () => {
    if (openVault === undefined) return;
    const fields = new FormData(createForm);
    const created = await connected().secrets.create(openVault.id, {
      name: String(fields.get('name') ?? '').trim(),
      value: { [String(fields.get('key') ?? '').trim()]: String(fields.get('value') ?? '') },
    });
    secretRows.prepend(secretRow(created));
    createForm.reset();
  });
});

if (import.meta.env.MODE === 'mock') {
  // The mock in a service worker, for working on the page without a service. Loaded only in
  // this mode, so a production build carries neither the mock nor MSW.
  const { startMock } = await import('./mock.js');
  await startMock(tokenInput, connectForm);
} else {
  const saved = sessionStorage.getItem('vault-token');
  if (saved !== null) {
    tokenInput.value = saved;
    void act(connectForm, () => connect(saved));
  }
}
