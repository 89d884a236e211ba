/**
 * The dashboard's Vite config. The service sends no CORS headers, so the page calls its own
 * origin and the dev server forwards `/v1` to the service named by SECRETS_VAULT_BASE_URL. In
 * production the same forwarding is the reverse proxy's job (or the page is served by the
 * service's host). `vite --mode mock` needs no service: the mock answers in a service worker.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';

const repository = (path: string) => fileURLToPath(new URL(`../../${path}`, import.meta.url));

/**
 * Serves MSW's service worker at `/mockServiceWorker.js` from the installed msw, so it always
 * matches msw's version. An application would run `npx msw init public` once instead.
 */
function mockServiceWorker(): Plugin {
  const script = createRequire(import.meta.url).resolve('msw/mockServiceWorker.js');
  return {
    name: 'mock-service-worker',
    configureServer(server) {
      server.middlewares.use('/mockServiceWorker.js', (_request, response) => {
        response.setHeader('Content-Type', 'text/javascript');
        response.end(readFileSync(script));
      });
    },
  };
}

export default defineConfig(({ mode }) => {
  const service = process.env.SECRETS_VAULT_BASE_URL;
  if (mode !== 'mock' && service === undefined) {
    throw new Error('Set SECRETS_VAULT_BASE_URL to the service origin, or run with --mode mock');
  }
  return {
    root: fileURLToPath(new URL('.', import.meta.url)),
    resolve: {
      // This repository's sources; an application imports the installed package instead.
      alias: [
        { find: '@secrets-vault/sdk/mock', replacement: repository('src/mock/index.ts') },
        { find: /^@secrets-vault\/sdk$/, replacement: repository('src/index.ts') },
      ],
    },
    server: {
      // changeOrigin: the service sees its own host name, as it would without the proxy.
      proxy:
        mode === 'mock' || service === undefined
          ? {}
          : { '/v1': { target: service, changeOrigin: true } },
    },
    plugins: mode === 'mock' ? [mockServiceWorker()] : [],
    build: { target: 'es2022' },
  };
});
