import 'reflect-metadata';
import { runCatalogueSync } from './catalogue-sync.entry';

/** The catalogue sync of the generation image (its second Kubernetes init container): catalogue-sync.entry.ts. */
runCatalogueSync(process.argv.slice(2), process.env, (line) => process.stdout.write(line + '\n')).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`Failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(3);
  },
);
