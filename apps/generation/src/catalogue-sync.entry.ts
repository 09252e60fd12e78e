import { readFileSync } from 'node:fs';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { DomainError } from '@gen/errors';
import { openGenerationDatabase } from './generation.database';
import { CatalogueAdminModule } from './catalogue-admin.module';
import { CatalogueAdminService } from './catalogue/catalogue-admin.service';

/**
 * `node dist/apps/generation/src/sync-catalogue.js --file <catalogue.json>`: makes the model catalogue
 * equal the file, as `cli models sync --file` does, from the generation image itself. Kubernetes runs
 * it as generation's second init container, so the catalogue is always written by the generation
 * version about to run on it, never by an operator CLI of another release. The running replicas
 * learn the change from the database's notice. The result is JSON on stdout; exit 0 done, 2 a file
 * refused (nothing changed), 3 failed.
 */
export async function runCatalogueSync(argv: readonly string[], env: NodeJS.ProcessEnv, write: (line: string) => void): Promise<number> {
  const file = argv[argv.indexOf('--file') + 1];
  const refuse = (code: string, message: string, exit: number) => {
    write(JSON.stringify({ error: { code, message } }));
    return exit;
  };
  if (!argv.includes('--file') || !file) return refuse('validation_error', 'usage: sync-catalogue.js --file <catalogue.json>', 2);
  if (!env.DATABASE_URL) return refuse('validation_error', 'DATABASE_URL is required', 2);
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    return refuse('validation_error', `Cannot read ${file} as JSON (${(error as Error).message})`, 2);
  }
  // verify: the migrate init container ran first; this never migrates.
  const dataSource = await openGenerationDatabase(env.DATABASE_URL, 2, 'verify');
  try {
    @Module({ imports: [CatalogueAdminModule.register(dataSource)] })
    class CatalogueSyncModule {}
    const app = await NestFactory.createApplicationContext(CatalogueSyncModule, { logger: false, abortOnError: false });
    try {
      write(JSON.stringify(await app.get(CatalogueAdminService).sync(json)));
      return 0;
    } finally {
      await app.close();
    }
  } catch (error) {
    if (error instanceof DomainError) return refuse(error.code, error.message, error.code === 'validation_error' ? 2 : 1);
    throw error;
  } finally {
    await dataSource.destroy();
  }
}
