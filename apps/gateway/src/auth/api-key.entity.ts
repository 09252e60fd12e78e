import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn, Unique } from 'typeorm';
import type { ApiKeyScope, WebhookScheme } from '@gen/contracts';
import { AccountEntity } from './account.entity';

// What a key may do and how its webhooks are signed: the dashboard's contract declares them.
export { API_KEY_SCOPES, WEBHOOK_SCHEMES, type ApiKeyScope, type WebhookScheme } from '@gen/contracts';

/**
 * An API key. Only a SHA-256 of the key is kept; `lookupId` finds the row, the hash proves the key.
 * Mirrors migration 1763700000000 (auth-init), constraint and index names included.
 */
@Entity({ name: 'api_keys' })
@Unique('api_keys_lookup_id_key', ['lookupId'])
@Index('api_keys_by_account', ['accountId'])
@Index('api_keys_account_created_by', ['accountId', 'createdBy'], { where: '"created_by" IS NOT NULL' })
@Check('api_keys_webhook_scheme_check', `"webhook_scheme" IN ('service', 'standard')`)
@Check('api_keys_webhook_previous_secret_check', `("webhook_previous_secret" IS NULL) = ("webhook_previous_secret_until" IS NULL)`)
export class ApiKeyEntity {
  @PrimaryColumn('uuid', { primaryKeyConstraintName: 'api_keys_pkey' })
  id!: string;

  @Column('uuid', { name: 'account_id' })
  accountId!: string;

  @ManyToOne(() => AccountEntity, { onDelete: 'NO ACTION', onUpdate: 'NO ACTION' })
  @JoinColumn({ name: 'account_id', referencedColumnName: 'id', foreignKeyConstraintName: 'api_keys_account_id_fkey' })
  account?: AccountEntity;

  @Column('text')
  name!: string;

  /** The first characters after the prefix: public, shown in lists, indexed (unique). */
  @Column('text', { name: 'lookup_id' })
  lookupId!: string;

  @Column('bytea', { name: 'key_hash' })
  keyHash!: Buffer;

  @Column('text')
  last4!: string;

  @Column('text', { array: true })
  scopes!: ApiKeyScope[];

  @Column('text', { name: 'webhook_url', nullable: true })
  webhookUrl!: string | null;

  @Column('text', { name: 'webhook_secret', nullable: true })
  webhookSecret!: string | null;

  /** Mirrors migration 1764850000000 (auth-webhook-schemes). */
  @Column('text', { name: 'webhook_scheme', default: 'service' })
  webhookScheme!: WebhookScheme;

  /** A `standard` key's previous secret (encrypted) while a rotation overlaps; null otherwise. */
  @Column('text', { name: 'webhook_previous_secret', nullable: true })
  webhookPreviousSecret!: string | null;

  /** Until when the previous secret still signs beside the current one. */
  @Column('timestamptz', { name: 'webhook_previous_secret_until', nullable: true })
  webhookPreviousSecretUntil!: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column('timestamptz', { name: 'last_used_at', nullable: true })
  lastUsedAt!: Date | null;

  @Column('timestamptz', { name: 'revoked_at', nullable: true })
  revokedAt!: Date | null;

  /** The dashboard user who made the key (migration 1766036000001); null: an operator, or made before. */
  @Column('uuid', { name: 'created_by', nullable: true })
  createdBy!: string | null;
}
