import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const semver = createRequire(__filename)('semver') as {
  satisfies(version: string, range: string): boolean;
  minVersion(range: string): { version: string } | null;
};

interface LockPackage {
  version?: string;
  engines?: { node?: string } | string[];
  hasInstallScript?: boolean;
}

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string }; allowScripts: Record<string, boolean> };
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockPackage> };
const packages = Object.entries(lock.packages).filter(([path]) => path !== '');
const nameOf = (path: string) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);

/** The oldest Node version of each range package.json claims (`^20.19.0 || ^22.13.0 || >=24.0.0`: 20.19.0, 22.13.0 and 24.0.0). */
const claimed = pkg.engines.node.split('||').map((range) => semver.minVersion(range.trim())?.version as string);

/**
 * What a clean `npm ci` would warn about, read from the lockfile: a package whose `engines` refuse a
 * Node version the project claims (EBADENGINE), or an install script that allowScripts neither
 * approves nor declines. (.ci/run installs for real; this keeps the lockfile honest between runs.)
 */
describe('install: the Node versions claimed and the lockfile agree', () => {
  it('claims the Node versions the README states', () => {
    expect(claimed).toEqual(['20.19.0', '22.13.0', '24.0.0']);
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(readme).toContain('Node.js 22.13 or later (the image\'s LTS line; 24 works too), or 20.19 or later (20.x');
  });

  it('every package accepts the oldest Node of each claimed range (no EBADENGINE)', () => {
    const refusing = packages
      .filter(([, p]) => !Array.isArray(p.engines) && typeof p.engines?.node === 'string')
      .flatMap(([path, p]) =>
        claimed.filter((node) => !semver.satisfies(node, (p.engines as { node: string }).node)).map((node) => `${nameOf(path)}@${p.version} needs node ${(p.engines as { node: string }).node}, not ${node}`),
      );
    expect(refusing).toEqual([]);
  });

  it('every install script is approved or declined in allowScripts (no install-scripts warning)', () => {
    const uncovered = packages.filter(([path, p]) => p.hasInstallScript && !(nameOf(path) in pkg.allowScripts)).map(([path]) => nameOf(path));
    expect(uncovered).toEqual([]);
  });
});
