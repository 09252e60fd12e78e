export * from './validate-shape';
export * from './nested';
export * from './rules';
