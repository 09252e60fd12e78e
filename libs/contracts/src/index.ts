export * from './generation';
export * from './messages';
