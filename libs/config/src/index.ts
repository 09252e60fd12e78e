export * from './env';
export * from './common';
export * from './run-main';
export * from './ops';
export * from './http-limits';
