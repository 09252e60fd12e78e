import { testAdminUrl } from '@gen/testing';
import { runRollingUpdate } from '../../bench/rolling/rolling-update';
import { APP_NAMES } from '../support/distributed-harness';
import { preparedReleases } from './releases';

/**
 * A rolling upgrade from each service's previous release to HEAD under load, the gateway first (the
 * order that puts a newer gateway before older services behind it): two replicas each, a new process
 * ready before an old one gets SIGTERM, each new process migrating its own schema as it starts.
 * Clients see only 2xx, every accepted job ends once, credits are exact, every webhook arrives signed.
 * `npm run bench:rolling` runs this in two orders and prints the counts.
 */
describe('a rolling upgrade from the previous releases to HEAD under load', () => {
  it('costs clients nothing: only 2xx, 0 lost, credits exact, every webhook delivered', async () => {
    const releases = preparedReleases();
    const began = Date.now();
    const steps: string[] = [];
    const result = await runRollingUpdate({
      servers: { pgAdminUrl: testAdminUrl(), natsUrl: process.env.DIST_NATS_URL ?? 'nats://127.0.0.1:4222' },
      clients: 4,
      settleMs: 2_000,
      maxSurge: 2,
      from: Object.fromEntries(APP_NAMES.map((app) => [app, releases[app].folder])),
      order: ['gateway', 'billing', 'generation', 'webhooks'],
      log: (line) => steps.push(`${((Date.now() - began) / 1000).toFixed(1)} s ${line}`),
    });
    process.stdout.write(`rolling upgrade: ${JSON.stringify(result)}\n${steps.join('\n')}\n`);
    expect(result.replaced).toBe(8);
    expect(result.accepted).toBeGreaterThan(30);
    expect(result.acceptedAsync).toBeGreaterThan(5);
    expect({ errors: result.errors, samples: result.errorSamples, lost: result.lost, failed: result.failed }).toEqual({ errors: 0, samples: [], lost: 0, failed: 0 });
    expect({ difference: result.creditsDifference, held: result.creditsHeld }).toEqual({ difference: 0, held: 0 });
    expect({ missing: result.webhooksMissing, bad: result.badSignatures }).toEqual({ missing: 0, bad: 0 });
  }, 600_000);
});
