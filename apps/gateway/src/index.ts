export * from './gateway.module';
export * from './gateway.database';
export * from './gateway.tokens';
export * from './http/http-app';
export * from './provisioning/provisioning.service';
export * from './auth/api-keys.service';
export * from './maintenance/gateway-janitor.service';
