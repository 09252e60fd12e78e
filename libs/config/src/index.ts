export * from './variables';
export * from './env';
export * from './ops';
export * from './http-limits';
export * from './common';
export * from './distributed';
export * from './configuration-table';
export * from './run-main';
