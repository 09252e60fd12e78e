import type { Provider } from '@nestjs/common';
import { CreateKey } from './create-key.service';
import { ListKeys } from './list-keys.service';
import { RelabelKey } from './relabel-key.service';
import { RenewWebhookSecret } from './renew-webhook-secret.service';
import { RevokeKey } from './revoke-key.service';
import { KeyDefaultsRepository } from './key-defaults.repository';
import { SetKeyCaps } from './set-key-caps.service';
import { SetKeyDefaults } from './set-key-defaults.service';
import { SetKeyWebhookUrl } from './set-key-webhook-url.service';
import { SetWebhookScheme } from './set-webhook-scheme.service';

/**
 * Settings, then API Keys: each action one class. Every change to a key's webhook that leaves it
 * with a URL leaves it with a secret too (every delivery is signed).
 */
export const KEY_USE_CASES: Provider[] = [ListKeys, CreateKey, SetKeyWebhookUrl, RenewWebhookSecret, SetWebhookScheme, RelabelKey, SetKeyCaps, RevokeKey, KeyDefaultsRepository, SetKeyDefaults];
