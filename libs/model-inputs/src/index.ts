export * from './input-schema';
export * from './input-validator';
export * from './metadata';
export * from './pricing';
