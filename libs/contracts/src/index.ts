export * from './generation';
export * from './messages';
export * from './model-rules';
export * from './health';
export * from './provider-callbacks';
export * from './member-roles';
export * from './validation';
export * from './dashboard';
