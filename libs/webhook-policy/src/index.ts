export * from './ip-policy';
export * from './url-policy';
export * from './safe-agent';
export * from './webhook-policy.settings';
