import { Check, Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * Failed sign-in (and sign-up) attempts per email and per client address (see sign-in-throttle.ts).
 * Mirrors migration 1764100000000 (dashboard-users-sessions), constraint names included.
 */
@Entity({ name: 'sign_in_throttle' })
@Check('sign_in_throttle_failures_check', `"failures" >= 0`)
export class SignInThrottleEntity {
  /** `email:<sha256 of the lower-case email>`, `ip:<address>` or `sign-up:<address>`. */
  @PrimaryColumn('text', { primaryKeyConstraintName: 'sign_in_throttle_pkey' })
  key!: string;

  @Column('integer', { default: 0 })
  failures!: number;

  @Column('timestamptz', { name: 'last_attempt_at', nullable: true })
  lastAttemptAt!: Date | null;

  @Column('timestamptz', { name: 'locked_until', nullable: true })
  lockedUntil!: Date | null;
}
