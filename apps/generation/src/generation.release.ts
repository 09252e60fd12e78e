import { join } from 'node:path';
import { BuildInfo, readBuildInfo } from '@gen/observability';

/** The running generation release: apps/generation/package.json under jest, dist/apps/generation/package.json in a build or image. */
export function generationRelease(): BuildInfo {
  return readBuildInfo('generation', join(__dirname, '..', 'package.json'));
}
