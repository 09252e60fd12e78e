import { readFileSync } from 'node:fs';
import { MESSAGE_CONTRACT_VERSION } from '@gen/contracts';
import { Gauge, Registry } from 'prom-client';

/** Which release a running service is: its own version and the message contract it speaks. */
export interface BuildInfo {
  service: string;
  /** The service's own version (apps/<service>/package.json, which `nx release` bumps). */
  version: string;
  /** MESSAGE_CONTRACT_VERSION of @gen/contracts. */
  contract: string;
}

/**
 * Reads a service's version from its package.json at run time. The app passes the path beside its
 * own code (`join(__dirname, '..', 'package.json')`), which is apps/<service>/package.json under jest
 * and dist/apps/<service>/package.json in a build (tools/copy-sql.js copies it), so the number is the
 * one the release wrote, not one compiled in.
 */
export function readBuildInfo(service: string, packageJsonPath: string): BuildInfo {
  const { version } = JSON.parse(readFileSync(packageJsonPath, 'utf8')) as { version?: unknown };
  if (typeof version !== 'string') throw new Error(`${packageJsonPath} has no version`);
  return { service, version, contract: MESSAGE_CONTRACT_VERSION };
}

/** What /healthz adds to its body: one service's `service`, `version`, `contract`; standalone's `services` by name. */
export function buildFields(process: string, builds: readonly BuildInfo[]): Record<string, unknown> {
  if (builds.length === 0) return {};
  if (builds.length === 1 && builds[0].service === process) return { ...builds[0] };
  return { service: process, contract: MESSAGE_CONTRACT_VERSION, services: Object.fromEntries(builds.map((b) => [b.service, b.version])) };
}

/** `gen_build_info{service,version,contract} 1`, one series per service the process runs. */
export function registerBuildInfo(registry: Registry, builds: readonly BuildInfo[]): void {
  if (builds.length === 0) return;
  const gauge = new Gauge({
    name: 'gen_build_info',
    help: 'The running release: 1 per service with its version and message contract version',
    labelNames: ['service', 'version', 'contract'],
    registers: [registry],
  });
  for (const b of builds) gauge.set({ service: b.service, version: b.version, contract: b.contract }, 1);
}
