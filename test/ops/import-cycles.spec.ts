import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const GATEWAY = resolve(__dirname, '..', '..', 'apps', 'gateway', 'src');

/** The gateway folders that the non-spec files under `folder` import from (relative imports only). */
function importedFolders(folder: string): Set<string> {
  const found = new Set<string>();
  for (const entry of readdirSync(join(GATEWAY, folder), { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts') || entry.name.includes('.spec.')) continue;
    const file = join(entry.parentPath, entry.name);
    for (const [, path] of readFileSync(file, 'utf8').matchAll(/from '(\.[^']+)'/g)) {
      found.add(relative(GATEWAY, dirname(resolve(dirname(file), path))));
    }
  }
  return found;
}

/**
 * Account creation (provisioning) and the dashboard's sign-in (dashboard/sessions) share what both
 * need through users/ (the user entity, password hashing, the email rule, accounts with their
 * user): sessions use provisioning for sign-up, never the other way round.
 */
describe('gateway folders without import cycles', () => {
  it('provisioning and users import nothing of the dashboard', () => {
    for (const folder of ['provisioning', 'users']) {
      expect([...importedFolders(folder)].filter((f) => f.startsWith('dashboard'))).toEqual([]);
    }
    expect([...importedFolders('users')]).not.toContain('provisioning');
  });

  it("the dashboard's sessions use provisioning and users", () => {
    expect([...importedFolders('dashboard/sessions')]).toEqual(expect.arrayContaining(['provisioning', 'users']));
  });

  it('the API key guard uses rate-limit, which uses plans, and neither imports a feature folder back', () => {
    expect([...importedFolders('plans')].filter((f) => f !== 'plans')).toEqual([]);
    expect([...importedFolders('rate-limit')].filter((f) => f !== '' && f !== 'rate-limit')).toEqual(['plans']);
  });

  it('the feature folders import one another without a cycle', () => {
    const features = ['accounts', 'generations', 'keys', 'models', 'plans', 'rate-limit', 'usage', 'webhook-tests'];
    const uses = new Map(features.map((f) => [f, [...importedFolders(f)].map((i) => i.split('/')[0]).filter((i) => i !== f && features.includes(i))]));
    const cycles: string[] = [];
    const visit = (folder: string, path: string[]): void => {
      if (path.includes(folder)) cycles.push([...path.slice(path.indexOf(folder)), folder].join(' -> '));
      else for (const next of uses.get(folder) ?? []) visit(next, [...path, folder]);
    };
    features.forEach((f) => visit(f, []));
    expect(cycles).toEqual([]);
  });
});
