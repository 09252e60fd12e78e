import { testAdminUrl } from '@gen/testing';
import { runRollingUpdate } from '../../bench/rolling/rolling-update';

/**
 * A Kubernetes rolling update of every Deployment in turn (two replicas each: start the new processes,
 * wait until ready, SIGTERM the old ones), under load: clients see no error, no accepted job is lost,
 * and billing charged exactly what the records say. `npm run bench:rolling` runs the same and prints
 * the counts.
 */
describe('distributed: a rolling update of every Deployment under load', () => {
  it('costs clients nothing: 0 errors, 0 lost, credits exact', async () => {
    const began = Date.now();
    const steps: string[] = [];
    const result = await runRollingUpdate({
      servers: { pgAdminUrl: testAdminUrl(), natsUrl: process.env.DIST_NATS_URL ?? 'nats://127.0.0.1:4222' },
      clients: 6,
      settleMs: 2_000,
      // Both new processes of a Deployment at once (k8s/ sets 1): half the process starts in turn, the
      // same SIGTERM of each old process while another replica of its service is ready.
      maxSurge: 2,
      log: (line) => steps.push(`${((Date.now() - began) / 1000).toFixed(1)} s ${line}`),
    });
    process.stdout.write(`rolling update: ${JSON.stringify(result)}\n${steps.join('\n')}\n`);
    expect(result.replaced).toBe(8);
    expect(result.accepted).toBeGreaterThan(50);
    expect({ errors: result.errors, samples: result.errorSamples, lost: result.lost, failed: result.failed }).toEqual({ errors: 0, samples: [], lost: 0, failed: 0 });
    expect({ difference: result.creditsDifference, held: result.creditsHeld }).toEqual({ difference: 0, held: 0 });
  }, 400_000);
});
