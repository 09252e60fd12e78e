import { INestApplicationContext, Module, ModuleMetadata } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { DataSource } from 'typeorm';

/**
 * Opens the data sources a command needs, runs `use` on them and closes them whatever happens (a
 * source that opened is closed when another one failed to).
 */
export async function withDataSources<T>(opens: Array<Promise<DataSource>>, use: (sources: DataSource[]) => Promise<T>): Promise<T> {
  const opened = await Promise.allSettled(opens);
  const sources = opened.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  try {
    const failed = opened.find((result): result is PromiseRejectedResult => result.status === 'rejected');
    if (failed) throw failed.reason;
    return await use(sources);
  } finally {
    await Promise.allSettled(sources.map((source) => source.destroy()));
  }
}

/** A module of the CLI's own that imports the services' modules a command uses. */
export function cliModule(imports: NonNullable<ModuleMetadata['imports']>): new () => object {
  class CliModule {}
  Module({ imports })(CliModule);
  return CliModule;
}

/** Runs `use` in a started application context, closing it after. */
export async function withApp<T>(start: Promise<INestApplicationContext>, use: (app: INestApplicationContext) => Promise<T>): Promise<T> {
  const app = await start;
  try {
    return await use(app);
  } finally {
    await app.close();
  }
}

/** Data sources, then a Nest context of the modules built on them (no HTTP, no logger), for one command. */
export function withNestContext<T>(
  opens: Array<Promise<DataSource>>,
  imports: (sources: DataSource[]) => NonNullable<ModuleMetadata['imports']>,
  use: (app: INestApplicationContext) => Promise<T>,
): Promise<T> {
  return withDataSources(opens, (sources) =>
    withApp(NestFactory.createApplicationContext(cliModule(imports(sources)), { logger: false, abortOnError: false }), use),
  );
}
