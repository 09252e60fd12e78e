export * from './validate-shape';
export * from './nested';
