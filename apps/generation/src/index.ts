export * from './generation.module';
export * from './generation.database';
export * from './generation.tokens';
export * from './catalogue/catalogue';
export * from './engines/engine';
