import { join } from 'node:path';
import { BuildInfo, readBuildInfo } from '@gen/observability';

/** The running webhooks release: apps/webhooks/package.json under jest, dist/apps/webhooks/package.json in a build or image. */
export function webhooksRelease(): BuildInfo {
  return readBuildInfo('webhooks', join(__dirname, '..', 'package.json'));
}
