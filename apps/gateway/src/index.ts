// The gateway as other processes compose it (standalone, the CLI): its module, database, HTTP set-up and settings.
export { GatewayModule } from './gateway.module';
export { authDatabaseOptions, openAuthDatabase } from './gateway.database';
export { configureHttpApp, createFastifyAdapter } from './http/http-app';
export { ProvisioningService } from './provisioning/provisioning.service';
export { ApiKeysService } from './auth/api-keys.service';
export { KeyWebhooksService } from './auth/key-webhooks.service';
export { GatewayJanitorService } from './maintenance/gateway-janitor.service';
export { newWebhookSecretKey, type WebhookSecretKeyRing } from './auth/webhook-secret-cipher';
export { readGatewayParts, readWebhookSecretKeys, type GatewayParts } from './gateway.settings';
export { GATEWAY_VARIABLES } from './settings/gateway-variables.settings';
export type { GatewaySettings } from './settings/gateway.tokens';
export { toKeyView } from './keys/key-view';
export { AuditService, type AuditEntryView, type AuditPage } from './audit-log/audit.service';
export { AUDIT_ACTIONS, operatorActor, type AuditAction, type AuditActor } from './audit-log/audit-actions';
export { LowBalanceAlertsService } from './low-balance/low-balance-alerts.service';
export { gatewayRelease } from './gateway.release';
export { PasswordHasher } from './users/password-hasher';
