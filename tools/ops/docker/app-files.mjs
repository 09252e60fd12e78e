// What a service's image must carry: the folders of dist/ its compiled entry points reach through
// require(), found by following the relative requires of the built code (tsc-alias makes every
// `@gen/...` import relative). A folder is an app (dist/apps/<app>) or a lib (dist/libs/<lib>); the
// image copies those folders whole, since SQL files and package.json are read beside the code.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/** The service images and their entry points (the process, its migration job, generation's catalogue sync). */
export const SERVICE_IMAGES = ['gateway', 'billing', 'generation', 'webhooks'];
const ENTRIES = ['main.js', 'migrate.js', 'sync-catalogue.js'];

/** Folders of dist/ ('apps/gateway', 'libs/config', ...) that an app's entry points require, sorted; null before a build. */
export function requiredFolders(root, app) {
  const dist = join(root, 'dist');
  const stack = ENTRIES.map((f) => join(dist, 'apps', app, 'src', f)).filter((f) => existsSync(f));
  if (stack.length === 0) return null;
  const seen = new Set();
  while (stack.length) {
    const file = stack.pop();
    if (seen.has(file)) continue;
    seen.add(file);
    for (const match of readFileSync(file, 'utf8').matchAll(/require\("(\.{1,2}\/[^"]*)"\)/g)) {
      const base = resolve(dirname(file), match[1]);
      const found = [base, `${base}.js`, join(base, 'index.js')].find((p) => existsSync(p) && statSync(p).isFile());
      if (found) stack.push(found);
    }
  }
  return [...new Set([...seen].map((f) => relative(dist, f).split(sep).slice(0, 2).join('/')))].sort();
}
