import type { Provider } from '@nestjs/common';
import { CreateKey } from './create-key';
import { ListKeys } from './list-keys';
import { RelabelKey } from './relabel-key';
import { RenewWebhookSecret } from './renew-webhook-secret';
import { RevokeKey } from './revoke-key';
import { KeyDefaultsRepository } from './key-defaults.repository';
import { SetKeyCaps } from './set-key-caps';
import { SetKeyDefaults } from './set-key-defaults';
import { SetKeyWebhookUrl } from './set-key-webhook-url';
import { SetWebhookScheme } from './set-webhook-scheme';

/**
 * Settings, then API Keys: each action one class. Every change to a key's webhook that leaves it
 * with a URL leaves it with a secret too (every delivery is signed).
 */
export const KEY_USE_CASES: Provider[] = [ListKeys, CreateKey, SetKeyWebhookUrl, RenewWebhookSecret, SetWebhookScheme, RelabelKey, SetKeyCaps, RevokeKey, KeyDefaultsRepository, SetKeyDefaults];
