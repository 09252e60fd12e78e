import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn, Unique } from 'typeorm';
import { AccountEntity } from './account.entity';

export const API_KEY_SCOPES = ['generate', 'read'] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

/**
 * An API key. Only a SHA-256 of the key is kept; `lookupId` finds the row, the hash proves the key.
 * Mirrors migration 1763700000000 (auth-init), constraint and index names included.
 */
@Entity({ name: 'api_keys' })
@Unique('api_keys_lookup_id_key', ['lookupId'])
@Index('api_keys_by_account', ['accountId'])
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

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column('timestamptz', { name: 'last_used_at', nullable: true })
  lastUsedAt!: Date | null;

  @Column('timestamptz', { name: 'revoked_at', nullable: true })
  revokedAt!: Date | null;
}
