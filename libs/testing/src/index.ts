export * from './test-database';
export * from './http';
export * from './factories';
export * from './eventually';
export * from './schema-drift';
export * from './function-drift';
export * from './providers';
export * from './s3-server';
