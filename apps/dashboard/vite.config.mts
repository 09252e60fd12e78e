import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { publishBuild } from './publish-build.mts';

const here = fileURLToPath(new URL('.', import.meta.url));
const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Where the built dashboard goes: DASHBOARD_DIR (the folder the gateway serves, default
 * dist/apps/dashboard). Vite writes into a staging folder beside it, then publishBuild moves the
 * files in without ever emptying it: a running gateway keeps serving every page during a build.
 */
const target = resolve(root, process.env.DASHBOARD_DIR ?? 'dist/apps/dashboard');
const staging = `${target}.build-${process.pid}`;

/**
 * The dashboard: plain React, bundled by Vite (its built-in transform handles TSX; no plugin needed
 * for a production build). Served by the gateway under /dashboard/ from dist/apps/dashboard.
 */
export default defineConfig({
  root: here,
  base: '/dashboard/',
  publicDir: false,
  resolve: { alias: { '@gen/contracts': fileURLToPath(new URL('../../libs/contracts/src/browser.ts', import.meta.url)) } },
  logLevel: 'warn',
  build: {
    outDir: staging,
    // Only the staging folder (this process's own) is emptied, never the served one.
    emptyOutDir: true,
    // Built and kept beside the build (error tracking), named by no script: the gateway serves them
    // only with DASHBOARD_SOURCE_MAPS=public (then with a SourceMap header).
    sourcemap: 'hidden',
    target: 'es2022',
    assetsInlineLimit: 0,
    // The 3D preview's chunk (three.js, ~640 kB) is loaded only on a 3D output's page.
    chunkSizeWarningLimit: 700,
  },
  plugins: [
    {
      name: 'publish-without-emptying',
      apply: 'build',
      closeBundle: {
        sequential: true,
        order: 'post',
        handler(error?: Error) {
          if (error) rmSync(staging, { recursive: true, force: true });
          else publishBuild(staging, target);
        },
      },
    },
  ],
  server: {
    // `npm run dev:dashboard`: pages with hot reload, the API from a running standalone on :3000.
    proxy: { '/dashboard/api': 'http://127.0.0.1:3000', '/cdn': 'http://127.0.0.1:3000' },
  },
});
