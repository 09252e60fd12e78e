import { ConfigError } from './env';

/** Runs a service's start-up; a bad configuration prints its message and exits 1 (no stack trace). */
export function runMain(name: string, start: () => Promise<{ stop(): Promise<void> }>): void {
  start()
    .then((running) => {
      let stopping = false;
      const shutdown = (signal: string) => {
        if (stopping) return;
        stopping = true;
        process.stdout.write(JSON.stringify({ level: 'log', service: name, message: `${signal}: shutting down` }) + '\n');
        running.stop().then(
          () => process.exit(0),
          (error: unknown) => {
            console.error(error);
            process.exit(1);
          },
        );
      };
      process.on('SIGTERM', () => shutdown('SIGTERM'));
      process.on('SIGINT', () => shutdown('SIGINT'));
    })
    .catch((error: unknown) => {
      if (error instanceof ConfigError) console.error(`${name}: ${error.message}`);
      else console.error(`${name} failed to start:`, error);
      process.exit(1);
    });
}
