export * from './generation';
export * from './messages';
export * from './health';
