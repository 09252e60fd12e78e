export * from './test-database';
export * from './http';
