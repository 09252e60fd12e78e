export * from './output-formats';
export * from './output-storage';
