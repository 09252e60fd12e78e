export * from './standalone';
export * from './standalone.config';
