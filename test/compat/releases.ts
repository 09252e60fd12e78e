import { APP_NAMES, AppName } from '../support/distributed-harness';
import type { VersionMix } from './cross-version-skeleton';

/** One service's previous release, as test/compat/global-setup.ts built it. */
export interface PreparedRelease {
  version: string;
  commit: string;
  folder: string;
}

/** The previous release of each service (COMPAT_RELEASES, set by the global setup). */
export function preparedReleases(): Record<AppName, PreparedRelease> {
  const json = process.env.COMPAT_RELEASES;
  if (!json) throw new Error('COMPAT_RELEASES is not set: run the suite with `npm run test:compat` (its global setup builds the previous release)');
  return JSON.parse(json) as Record<AppName, PreparedRelease>;
}

const short = (release: PreparedRelease) => `${release.version} (${release.commit.slice(0, 7)})`;

/** Each service at its previous release beside the others at HEAD: HEAD migrates every schema first. */
export function onePrevious(): VersionMix[] {
  const releases = preparedReleases();
  return APP_NAMES.map((service) => ({
    label: `${service} at ${short(releases[service])}, the others at HEAD`,
    previous: { [service]: releases[service].folder },
    migrateFirst: true,
  }));
}

/** Each service at HEAD beside the others at their previous releases: each migrates its own schema. */
export function oneNewer(): VersionMix[] {
  const releases = preparedReleases();
  return APP_NAMES.map((service) => ({
    label: `${service} at HEAD, the others at their previous release`,
    previous: Object.fromEntries(APP_NAMES.filter((other) => other !== service).map((other) => [other, releases[other].folder])),
    migrateFirst: false,
  }));
}
