export * from './test-database';
export * from './http';
export * from './factories';
export * from './schema-drift';
export * from './providers';
