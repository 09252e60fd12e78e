import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

interface Release {
  project: string;
  version: string;
  commit: string;
  contract?: string;
  date: string;
}
interface ReleaseRecord {
  $comment?: string;
  releases: Release[];
}
const release = createRequire(__filename)('../../tools/release/release.js') as {
  appendRelease(record: ReleaseRecord, entry: Partial<Release>): ReleaseRecord;
  formatRecord(record: ReleaseRecord): string;
  promoteUnreleased(changelog: string, version: string, date: string): string;
  withManifestVersion(yaml: string, version: string): string;
  withDevImageTag(kustomization: string, service: string, version: string): string;
};
const actions = createRequire(__filename)('../../tools/release/version-actions.js') as {
  pyprojectVersion(text: string): string | null;
  withPyprojectVersion(text: string, version: string): string;
};
const ROOT = join(__dirname, '..', '..');
const COMMIT = 'a'.repeat(40);

/** `npm run release`'s record keeping (tools/release/release.js): appends, never edits, refuses what CI could not use. */
describe('the release record (release/releases.json)', () => {
  const committed = (): ReleaseRecord => JSON.parse(readFileSync(join(ROOT, 'release', 'releases.json'), 'utf8')) as ReleaseRecord;

  it('appends one release, newest last, leaving every earlier entry and the record given as they were', () => {
    const record = committed();
    const before = JSON.stringify(record);
    const next = release.appendRelease(record, { project: 'billing', version: '1.1.0', commit: COMMIT, contract: '1.0.0', date: '2026-12-01' });
    expect(JSON.stringify(record)).toBe(before);
    expect(next.releases.slice(0, -1)).toEqual(record.releases);
    expect(next.releases.at(-1)).toEqual({ project: 'billing', version: '1.1.0', commit: COMMIT, contract: '1.0.0', date: '2026-12-01' });
    expect(next.$comment).toBe(record.$comment);
  });

  it('writes the record in its committed layout (one line per release)', () => {
    const text = readFileSync(join(ROOT, 'release', 'releases.json'), 'utf8');
    expect(release.formatRecord(committed())).toBe(text);
    const next = release.formatRecord(release.appendRelease(committed(), { project: 'sdk', version: '1.0.1', commit: COMMIT, date: '2026-12-01' }));
    expect(next.split('\n').at(-4)).toBe(`    { "project": "sdk", "version": "1.0.1", "commit": "${COMMIT}", "date": "2026-12-01" }`);
  });

  it('refuses a version that is not newer than the project\'s last, an unknown project, a short commit, a service without its contract', () => {
    const record = committed();
    const ok = { project: 'gateway', version: '1.0.1', commit: COMMIT, contract: '1.0.0', date: '2026-12-01' };
    expect(() => release.appendRelease(record, { ...ok, version: '1.0.0' })).toThrow('gateway 1.0.0 is not newer than its last release 1.0.0');
    expect(() => release.appendRelease(record, { ...ok, version: '0.9.0' })).toThrow('not newer');
    expect(() => release.appendRelease(record, { ...ok, project: 'payments' })).toThrow('unknown project "payments"');
    expect(() => release.appendRelease(record, { ...ok, commit: 'abc1234' })).toThrow('is not a full commit id');
    expect(() => release.appendRelease(record, { ...ok, contract: undefined })).toThrow('names its message contract version');
    expect(() => release.appendRelease(record, { ...ok, version: 'v2' })).toThrow('is not a semantic version');
    // A patch of one service leaves the others' versions alone: each project is compared with its own last release.
    expect(release.appendRelease(record, { ...ok, project: 'webhooks', version: '1.0.1' }).releases.at(-1)?.version).toBe('1.0.1');
  });

  it("turns the CHANGELOG's Unreleased section into the release, under a new empty one", () => {
    const changelog = '# billing\n\n## Unreleased\n\n- per-service migration entry\n\n## 1.0.0 (2026-11-28)\n\n- first release\n';
    expect(release.promoteUnreleased(changelog, '1.1.0', '2026-12-01')).toBe(
      '# billing\n\n## Unreleased\n\n## 1.1.0 (2026-12-01)\n\n- per-service migration entry\n\n## 1.0.0 (2026-11-28)\n\n- first release\n',
    );
    expect(() => release.promoteUnreleased('# billing\n', '1.1.0', '2026-12-01')).toThrow('no "## Unreleased" section');
  });

  it("moves a service's manifests with its release: the version label of k8s/base/<service>.yaml and its dev image tag only", () => {
    const base = readFileSync(join(ROOT, 'k8s', 'base', 'billing.yaml'), 'utf8');
    const moved = release.withManifestVersion(base, '1.1.0');
    expect(moved).not.toContain('app.kubernetes.io/version: "1.0.0"');
    expect(moved.match(/app\.kubernetes\.io\/version: "1\.1\.0"/g)?.length).toBe(base.match(/app\.kubernetes\.io\/version: /g)?.length);
    const dev = readFileSync(join(ROOT, 'k8s', 'overlays', 'dev', 'kustomization.yaml'), 'utf8');
    const tagged = release.withDevImageTag(dev, 'billing', '1.1.0');
    expect(tagged).toContain('- name: generation-service-billing\n    newTag: 1.1.0');
    expect(tagged).toContain('- name: generation-service-gateway\n    newTag: 1.0.0');
  });

  it("nx release's version actions read and write the Python SDK's version in pyproject.toml's [project] table only", () => {
    const pyproject = readFileSync(join(ROOT, 'sdk', 'python', 'pyproject.toml'), 'utf8');
    expect(actions.pyprojectVersion(pyproject)).toBe(readFileSync(join(ROOT, 'sdk', 'python', 'generation_service', '_version.py'), 'utf8').match(/__version__ = "([^"]+)"/)?.[1]);
    const bumped = actions.withPyprojectVersion(pyproject, '1.2.0');
    expect(actions.pyprojectVersion(bumped)).toBe('1.2.0');
    expect(bumped.replace('version = "1.2.0"', '')).toBe(pyproject.replace(/version = "[^"]+"/, ''));
    expect(() => actions.withPyprojectVersion('[tool.other]\nversion = "1"\n', '1.2.0')).toThrow('no version under [project]');
  });
});
