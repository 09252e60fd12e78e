// Builds the package into dist/: ESM (dist/esm), CommonJS (dist/cjs) and declarations (dist/types),
// each compiled by TypeScript from src/ with tsconfig.lib.json (no Node types: browser-safe).
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const dist = join(here, 'dist');
rmSync(dist, { recursive: true, force: true });
const compile = (...args) => execFileSync(process.execPath, [tsc, '-p', join(here, 'tsconfig.lib.json'), ...args], { stdio: 'inherit' });
compile('--module', 'ES2022', '--moduleResolution', 'bundler', '--outDir', join(dist, 'esm'));
compile('--module', 'CommonJS', '--moduleResolution', 'node10', '--outDir', join(dist, 'cjs'));
compile('--declaration', '--emitDeclarationOnly', '--sourceMap', 'false', '--module', 'ES2022', '--moduleResolution', 'bundler', '--outDir', join(dist, 'types'));
for (const [folder, type] of [['esm', 'module'], ['cjs', 'commonjs']]) {
  mkdirSync(join(dist, folder), { recursive: true });
  writeFileSync(join(dist, folder, 'package.json'), JSON.stringify({ type }) + '\n');
}
// stderr: `npm pack --json` runs this (prepack) and its stdout must stay the JSON.
console.error(`built ${dist} (esm, cjs, types)`);
