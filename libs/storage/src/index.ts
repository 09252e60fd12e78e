export * from './output-formats';
export * from './output-storage';
export * from './s3-object-storage';
export * from './storage.settings';
export * from './sniffed-write';
