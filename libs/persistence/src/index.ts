export * from './embedded-postgres';
export * from './postmaster';
export * from './service-data-source';
export * from './pg-errors';
export * from './sql';
export * from './batch-queue';
export * from './pg-retry';
export * from './prepared';
