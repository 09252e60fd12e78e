import { join } from 'node:path';
import { BuildInfo, readBuildInfo } from '@gen/observability';

/** The running gateway release: apps/gateway/package.json under jest, dist/apps/gateway/package.json in a build or image. */
export function gatewayRelease(): BuildInfo {
  return readBuildInfo('gateway', join(__dirname, '..', 'package.json'));
}
