import { join } from 'node:path';
import { BuildInfo, readBuildInfo } from '@gen/observability';

/** The running billing release: apps/billing/package.json under jest, dist/apps/billing/package.json in a build or image. */
export function billingRelease(): BuildInfo {
  return readBuildInfo('billing', join(__dirname, '..', 'package.json'));
}
