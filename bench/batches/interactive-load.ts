import { syncGenerateOutcome, syncGenerateRequest } from '../support/api-requests';
import { runLoad } from '../support/load';

/**
 * The interactive load of bench:batches in a process of its own: the benchmark's process also serves
 * the Replicate fake (hundreds of status reads and downloads a second while a batch runs), and a
 * client sharing that event loop would count the fake's work as the service's latency.
 * Arguments: base URL, API key, connections, seconds. Prints the LoadResult as JSON.
 */
async function main(): Promise<void> {
  const [url, key, connections, seconds] = process.argv.slice(2);
  const result = await runLoad(url, {
    connections: Number(connections),
    warmupSeconds: 3,
    seconds: Number(seconds),
    request: () => syncGenerateRequest(key),
    outcome: syncGenerateOutcome,
  });
  process.stdout.write(JSON.stringify(result));
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
