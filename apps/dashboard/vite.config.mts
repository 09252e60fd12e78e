import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = fileURLToPath(new URL('.', import.meta.url));

/**
 * The dashboard: plain React, bundled by Vite (its built-in transform handles TSX; no plugin needed
 * for a production build). Served by the gateway under /dashboard/ from dist/apps/dashboard.
 */
export default defineConfig({
  root: here,
  base: '/dashboard/',
  publicDir: false,
  resolve: { alias: { '@gen/contracts': fileURLToPath(new URL('../../libs/contracts/src/index.ts', import.meta.url)) } },
  logLevel: 'warn',
  build: {
    outDir: fileURLToPath(new URL('../../dist/apps/dashboard', import.meta.url)),
    emptyOutDir: true,
    sourcemap: true,
    target: 'es2022',
    assetsInlineLimit: 0,
    // The 3D preview's chunk (three.js, ~640 kB) is loaded only on a 3D output's page.
    chunkSizeWarningLimit: 700,
  },
  server: {
    // `npm run dev:dashboard`: pages with hot reload, the API from a running standalone on :3000.
    proxy: { '/dashboard/api': 'http://127.0.0.1:3000', '/cdn': 'http://127.0.0.1:3000' },
  },
});
