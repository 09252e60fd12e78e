import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

export const API_KEY_SCOPES = ['generate', 'read'] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

/** An API key. Only a SHA-256 of the key is kept; `lookupId` finds the row, the hash proves the key. */
@Entity({ name: 'api_keys' })
export class ApiKeyEntity {
  @PrimaryColumn('uuid')
  id!: string;

  @Column('uuid', { name: 'account_id' })
  accountId!: string;

  @Column('text')
  name!: string;

  /** The first characters after the prefix: public, shown in lists, indexed. */
  @Column('text', { name: 'lookup_id', unique: true })
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
