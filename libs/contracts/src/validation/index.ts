export * from './validate-shape';
export * from './nested';
export * from './rules';
export * from './quick-check';
