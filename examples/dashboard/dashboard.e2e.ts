/**
 * The dashboard clicked through in Chromium (Debian's /usr/bin/chromium, driven by
 * playwright-core) as a person would, asserting on what the page shows: once through Vite's
 * same-origin proxy to the mock served on loopback, once with the mock in a service worker
 * (`--mode mock`). Also builds the page for production and checks the mock stays out of it.
 * Saves docs/images/dashboard.png, which the README shows.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createVaultMock } from '@secrets-vault/sdk/mock';
import { serveVaultMock } from '@secrets-vault/sdk/mock/node';
import { type Browser, chromium, type Page } from 'playwright-core';
import { build, createServer, type ViteDevServer } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../test/browser/chromium.js';
import { FIRST_VAULT, seedDashboard } from './src/seed.js';

const configFile = fileURLToPath(new URL('./vite.config.ts', import.meta.url));
const screenshot = fileURLToPath(new URL('../../docs/images/dashboard.png', import.meta.url));
const WAIT = { timeout: 20_000 };

let browser: Browser;
beforeAll(async () => {
  browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: CHROMIUM_ARGS,
  });
});
afterAll(() => browser?.close());

async function startVite(mode: 'development' | 'mock'): Promise<ViteDevServer> {
  const server = await createServer({
    configFile,
    mode,
    logLevel: 'silent',
    server: { host: '127.0.0.1', port: 0, strictPort: false },
  });
  await server.listen();
  return server;
}

/** A fresh page that records every request it makes, to check where they went. */
async function openPage(url: string): Promise<{ page: Page; requests: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1000, height: 720 } });
  const requests: string[] = [];
  page.on('request', (request) => requests.push(request.url()));
  await page.goto(url);
  return { page, requests };
}

const vaultButtons = (page: Page) => page.locator('#vaults button.vault');
const errorText = (page: Page) => page.locator('#error');

/**
 * Signs in as the owner, pages through the vaults, opens the first, reveals and hides a value,
 * creates a secret and reads it back; ends with a value revealed, ready for a screenshot.
 */
async function walkThrough(page: Page, signInAsOwner: () => Promise<void>): Promise<void> {
  await signInAsOwner();
  await expect.poll(() => vaultButtons(page).count(), WAIT).toBe(5);
  await page.getByRole('button', { name: 'Load more' }).first().click();
  await expect.poll(() => vaultButtons(page).count(), WAIT).toBe(7);
  expect(await page.locator('#more-vaults').isHidden()).toBe(true);

  await vaultButtons(page).filter({ hasText: FIRST_VAULT }).click();
  await expect.poll(() => page.locator('#secrets tbody tr').count(), WAIT).toBe(3);
  expect(await page.locator('#vault-name').textContent()).toBe(FIRST_VAULT);
  // The list shows metadata: no value is in the page until one is asked for.
  expect(await page.content()).not.toContain('dashboard-password-not-real');

  const database = page.locator('tr[data-secret="database"]');
  await database.getByRole('button', { name: 'Reveal' }).click();
  await expect
    .poll(() => database.locator('dl.value').innerText(), WAIT)
    .toMatch(/password\s+dashboard-password-not-real/);
  await database.getByRole('button', { name: 'Hide' }).click();
  await expect.poll(() => page.content(), WAIT).not.toContain('dashboard-password-not-real');

  const form = page.locator('#create-secret');
  await form.getByLabel('Name').fill('sentry');
  await form.getByLabel('Key').fill('dsn');
  await form.getByLabel('Value').fill('https://public@sentry.example/1');
  await form.getByRole('button', { name: 'Create secret' }).click();
  const sentry = page.locator('tr[data-secret="sentry"]');
  await expect.poll(() => sentry.count(), WAIT).toBe(1);
  expect(await page.locator('#secrets tbody tr').count()).toBe(4);
  await sentry.getByRole('button', { name: 'Reveal' }).click();
  await expect
    .poll(() => sentry.locator('dl.value').innerText(), WAIT)
    .toMatch(/dsn\s+https:\/\/public@sentry\.example\/1/);
  expect(await errorText(page).isHidden()).toBe(true);
}

/** As a plain member, creating a secret is refused: the page says so in words. */
async function memberIsRefused(page: Page, signInAsMember: () => Promise<void>): Promise<void> {
  await signInAsMember();
  await expect.poll(() => vaultButtons(page).count(), WAIT).toBe(1);
  await vaultButtons(page).filter({ hasText: FIRST_VAULT }).click();
  await expect.poll(() => page.locator('#secrets tbody tr').count(), WAIT).toBeGreaterThan(2);
  const form = page.locator('#create-secret');
  await form.getByLabel('Name').fill('not-allowed');
  await form.getByLabel('Key').fill('key');
  await form.getByLabel('Value').fill('value');
  await form.getByRole('button', { name: 'Create secret' }).click();
  await expect
    .poll(() => errorText(page).textContent(), WAIT)
    .toBe('Your role on this vault does not allow that. Ask a vault admin for editor access.');
  expect(await page.locator('tr[data-secret="not-allowed"]').count()).toBe(0);
}

describe('the dashboard behind the dev server proxy, against the mock served on loopback', () => {
  it('pages, reveals, creates, shows typed errors in words, and calls only its own origin', async () => {
    const mock = createVaultMock({ now: '2026-11-02T09:30:00.000Z' });
    const served = await serveVaultMock(mock);
    await seedDashboard(served.url, mock.principals);
    process.env.SECRETS_VAULT_BASE_URL = served.url;
    const vite = await startVite('development');
    try {
      const origin = (vite.resolvedUrls?.local[0] ?? '').replace(/\/$/, '');
      const { page, requests } = await openPage(origin);
      const signIn = async (token: string) => {
        await page.locator('#token').fill(token);
        await page.getByRole('button', { name: 'Connect' }).click();
      };

      await signIn('not-a-valid-token');
      await expect
        .poll(() => errorText(page).textContent(), WAIT)
        .toBe('The service did not accept this token. Check it and connect again.');
      expect(await vaultButtons(page).count()).toBe(0);

      await walkThrough(page, () => signIn(mock.principals.owner.token));
      await mkdir(fileURLToPath(new URL('../../docs/images/', import.meta.url)), {
        recursive: true,
      });
      await page.screenshot({ path: screenshot });

      await memberIsRefused(page, () => signIn(mock.principals.member.token));

      // Every call went to the page's own origin (the proxy), none to the service directly,
      // and no token ever travelled in a URL.
      expect(requests.length).toBeGreaterThan(10);
      for (const url of requests) {
        expect(new URL(url).origin).toBe(origin);
        expect(url).not.toContain(mock.principals.owner.token);
      }
      expect(requests.some((url) => new URL(url).pathname === '/v1/vaults')).toBe(true);
      await page.close();
    } finally {
      delete process.env.SECRETS_VAULT_BASE_URL;
      await vite.close();
      await served.close();
    }
  });
});

describe('the dashboard with the mock in a service worker (--mode mock)', () => {
  it('runs the same walkthrough with no service at all', async () => {
    const vite = await startVite('mock');
    try {
      const origin = (vite.resolvedUrls?.local[0] ?? '').replace(/\/$/, '');
      const { page } = await openPage(origin);
      const note = page.locator('#mock-note');
      await expect.poll(() => note.isVisible(), WAIT).toBe(true);
      await walkThrough(page, () => note.getByRole('button', { name: 'Ada (owner)' }).click());
      await memberIsRefused(page, () =>
        note.getByRole('button', { name: 'Grace (member)' }).click(),
      );
      await page.close();
    } finally {
      await vite.close();
    }
  });
});

describe('the dashboard built for production', () => {
  it('bundles the SDK but neither the mock nor MSW', async () => {
    const outDir = await mkdtemp(join(tmpdir(), 'dashboard-build-'));
    process.env.SECRETS_VAULT_BASE_URL = 'https://vault.example.com';
    try {
      await build({ configFile, logLevel: 'silent', build: { outDir, emptyOutDir: true } });
      const assets = join(outDir, 'assets');
      const code = readdirSync(assets)
        .filter((name) => name.endsWith('.js'))
        .map((name) => readFileSync(join(assets, name), 'utf8'))
        .join('\n');
      // Booleans, not the code itself: a failure should not print a minified bundle.
      expect(code.includes('/vaults/{vaultId}/secrets'), 'the SDK is bundled').toBe(true);
      for (const absent of ['createVaultMock', 'mockServiceWorker', 'setupWorker', 'msw']) {
        expect(code.includes(absent), `${absent} is in the bundle`).toBe(false);
      }
    } finally {
      delete process.env.SECRETS_VAULT_BASE_URL;
      await rm(outDir, { recursive: true, force: true });
    }
  });
});
