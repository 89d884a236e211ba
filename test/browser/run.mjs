// Browser tests: the SDK in Chromium (Debian's /usr/bin/chromium, driven by playwright-core),
// on a page served from the same origin as the API, as a web dashboard is, and the bundled mock
// in a service worker (MSW's setupWorker) under a strict CSP. A small server here serves the
// pages and proxies /v1 to the mock served on loopback. Needs `npm run build` first
// (for the mock) and Chromium installed; `.ci/run` does both. Writes reports/browser.json.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { build } from 'esbuild';
import { chromium } from 'playwright-core';
import { createVaultMock } from '../../dist/mock/index.js';
import { serveVaultMock } from '../../dist/mock/node.js';
import { browserModules } from '../../scripts/browser-modules.ts';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './chromium.ts';

async function bundle(entry) {
  const result = await build({
    entryPoints: [new URL(entry, import.meta.url).pathname],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
    // The SDK as its browser build is: without what only a server needs.
    plugins: [browserModules],
  });
  return result.outputFiles[0].text;
}
const scripts = {
  '/page.js': await bundle('./page.ts'),
  '/worker-page.js': await bundle('./worker-page.ts'),
};
const serviceWorker = readFileSync(
  new URL('../../node_modules/msw/lib/mockServiceWorker.js', import.meta.url),
  'utf8',
);
// The strictest policy a dashboard would set: the SDK, zod/mini and the mock must live with it.
const STRICT_CSP =
  "default-src 'none'; script-src 'self'; connect-src 'self'; worker-src 'self'; base-uri 'none'";

const mock = createVaultMock();
const served = await serveVaultMock(mock);
let followed = 0;
const endless = { written: 0, closed: false };

const pages = createServer(async (incoming, outgoing) => {
  const url = new URL(incoming.url ?? '/', 'http://page.test');
  if (url.pathname === '/') {
    outgoing.writeHead(200, { 'Content-Type': 'text/html' });
    outgoing.end(
      '<!doctype html><title>SDK in a browser</title><script type="module" src="/page.js"></script>',
    );
    return;
  }
  if (url.pathname === '/worker') {
    outgoing.writeHead(200, { 'Content-Type': 'text/html', 'Content-Security-Policy': STRICT_CSP });
    outgoing.end(
      '<!doctype html><title>The mock in a browser</title><script type="module" src="/worker-page.js"></script>',
    );
    return;
  }
  if (Object.hasOwn(scripts, url.pathname)) {
    outgoing.writeHead(200, { 'Content-Type': 'text/javascript' });
    outgoing.end(scripts[url.pathname]);
    return;
  }
  if (url.pathname === '/mockServiceWorker.js') {
    outgoing.writeHead(200, { 'Content-Type': 'text/javascript' });
    outgoing.end(serviceWorker);
    return;
  }
  if (url.pathname === '/__followed') {
    outgoing.writeHead(200, { 'Content-Type': 'application/json' });
    outgoing.end(JSON.stringify({ count: followed }));
    return;
  }
  if (url.pathname === '/__endless') {
    outgoing.writeHead(200, { 'Content-Type': 'application/json' });
    outgoing.end(JSON.stringify(endless));
    return;
  }
  if (url.pathname.startsWith('/endless/')) {
    // An answer of unknown length (chunked) that never ends: the SDK must stop it at its limit.
    outgoing.writeHead(200, { 'Content-Type': 'application/json' });
    outgoing.on('close', () => {
      endless.closed = true;
    });
    const chunk = Buffer.alloc(256 * 1024, 32);
    const pump = () => {
      while (!endless.closed && endless.written < 2 * 1024 ** 3) {
        endless.written += chunk.length;
        if (!outgoing.write(chunk)) {
          outgoing.once('drain', pump);
          return;
        }
      }
      outgoing.end();
    };
    pump();
    return;
  }
  if (url.pathname.startsWith('/redirect/')) {
    outgoing.writeHead(307, { Location: `/followed${url.pathname.slice('/redirect'.length)}` });
    outgoing.end();
    return;
  }
  if (url.pathname.startsWith('/followed/')) {
    followed += 1;
    outgoing.writeHead(201, { 'Content-Type': 'application/json' });
    outgoing.end('{}');
    return;
  }
  // The same-origin proxy a dashboard puts in front of the service (the service sends no CORS).
  const chunks = [];
  for await (const chunk of incoming) chunks.push(chunk);
  const headers = Object.fromEntries(
    Object.entries(incoming.headers).filter(
      ([name]) => !['host', 'connection', 'origin', 'referer'].includes(name),
    ),
  );
  const answer = await fetch(`${served.url}${incoming.url}`, {
    method: incoming.method,
    headers,
    ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
  });
  outgoing.writeHead(answer.status, Object.fromEntries(answer.headers));
  outgoing.end(Buffer.from(await answer.arrayBuffer()));
});
await new Promise((resolve) => pages.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${pages.address().port}`;

const browser = await chromium.launch({
  executablePath: CHROMIUM_PATH,
  args: CHROMIUM_ARGS,
});
const results = [];
const cancelled = [];
try {
  const query = new URLSearchParams({
    token: mock.principals.owner.token,
    crossOrigin: served.url,
  });
  for (const path of [`/?${query}`, '/worker']) {
    const page = await browser.newPage();
    // A request whose answer the SDK read in full must not be reported as cancelled (DevTools'
    // "(canceled)", net::ERR_ABORTED): a same-origin API call may fail only where a check
    // makes it fail on purpose (the redirect the SDK refuses).
    page.on('requestfailed', (request) => {
      const { pathname } = new URL(request.url());
      if (request.url().startsWith(origin) && /^\/(mock-api\/)?v1\//.test(pathname)) {
        cancelled.push(`${request.method()} ${pathname} ${request.failure()?.errorText ?? ''}`);
      }
    });
    await page.goto(`${origin}${path}`);
    await page.waitForFunction(() => Array.isArray(window.__results), undefined, {
      timeout: 60_000,
    });
    results.push(...(await page.evaluate(() => window.__results)));
    await page.close();
  }
} finally {
  await browser.close();
  await served.close();
  await new Promise((resolve) => pages.close(resolve));
}

results.push({
  name: 'reads every answer to its end: Chromium reports no SDK request as cancelled',
  ok: cancelled.length === 0,
  detail: cancelled.join('; '),
});
for (const result of results) {
  console.log(
    `${result.ok ? '✓' : '✗'} ${result.name}${result.detail ? `: ${result.detail}` : ''}`,
  );
}
const passed = results.filter((result) => result.ok).length;
const failed = results.length - passed;
mkdirSync(new URL('../../reports/', import.meta.url), { recursive: true });
writeFileSync(
  new URL('../../reports/browser.json', import.meta.url),
  JSON.stringify({ passed, failed }),
);
console.log(`browser: ${passed} passed, ${failed} failed`);
process.exitCode = failed === 0 && passed > 0 ? 0 : 1;
