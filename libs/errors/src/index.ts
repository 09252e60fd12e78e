export * from './error-codes';
export * from './domain-error';
export * from './envelope';
export * from './http-error.filter';
export * from './rpc-error.filter';
export * from './wording';
export * from './transient';
