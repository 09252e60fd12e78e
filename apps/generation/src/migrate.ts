import 'reflect-metadata';
import { migrationMain } from '@gen/persistence';
import { generationDatabaseOptions } from './generation.database';

/** The generation service's migration job (its image's init container): the generation schema only, then exit. */
migrationMain((url) => generationDatabaseOptions(url));
