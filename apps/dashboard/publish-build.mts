import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

/** Written beside the build: the files of the last build and of the one before it. */
const MANIFEST = '.build-files.json';
const ENTRY = 'index.html';

interface Manifest {
  current: string[];
  previous: string[];
}

function filesUnder(folder: string): string[] {
  if (!existsSync(folder)) return [];
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(folder, join(entry.parentPath, entry.name)).split('\\').join('/'))
    .filter((file) => file !== MANIFEST);
}

function readManifest(folder: string): Manifest | null {
  try {
    const parsed = JSON.parse(readFileSync(join(folder, MANIFEST), 'utf8')) as Partial<Manifest>;
    return Array.isArray(parsed.current) && Array.isArray(parsed.previous) ? { current: parsed.current, previous: parsed.previous } : null;
  } catch {
    return null;
  }
}

/**
 * Moves a finished build from `staging` into `target`, the folder a running gateway may be serving,
 * without a moment where a page or an asset it names is missing:
 * 1. new hashed assets are moved in first (a name that exists already has the same content: Vite
 *    names assets by their hash);
 * 2. then index.html is replaced in one rename (atomic on one file system), so a page load sees the
 *    old entry with its assets or the new one with its assets;
 * 3. then files of builds older than the one just replaced are deleted. The previous build's assets
 *    stay: a tab opened before the switch may still load its lazy chunks (the 3D preview).
 * `staging` must be on the file system of `target` (a sibling folder) and is removed at the end.
 */
export function publishBuild(staging: string, target: string): { published: string[]; deleted: string[] } {
  const files = filesUnder(staging);
  if (!files.includes(ENTRY)) throw new Error(`The dashboard build in ${staging} has no ${ENTRY}`);
  mkdirSync(target, { recursive: true });
  const before = readManifest(target);
  // Without a manifest (a first build, or one made before this existed) everything there is one build.
  const previous = before?.current ?? filesUnder(target);
  for (const file of files.filter((f) => f !== ENTRY)) {
    const destination = join(target, file);
    if (existsSync(destination)) continue;
    mkdirSync(dirname(destination), { recursive: true });
    renameSync(join(staging, file), destination);
  }
  renameSync(join(staging, ENTRY), join(target, ENTRY));
  const keep = new Set([...files, ...previous]);
  const deleted = filesUnder(target).filter((file) => !keep.has(file));
  for (const file of deleted) rmSync(join(target, file), { force: true });
  const manifest: Manifest = { current: files, previous: previous.filter((file) => !files.includes(file)) };
  writeFileSync(join(target, `${MANIFEST}.tmp`), JSON.stringify(manifest, null, 2) + '\n');
  renameSync(join(target, `${MANIFEST}.tmp`), join(target, MANIFEST));
  rmSync(staging, { recursive: true, force: true });
  return { published: files, deleted };
}
