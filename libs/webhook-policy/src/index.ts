export * from './ip-policy';
export * from './url-policy';
export * from './safe-agent';
