import { Column, Entity, PrimaryColumn } from 'typeorm';

/** Failed sign-in (and sign-up) attempts per email and per client address (see sign-in-throttle.ts). */
@Entity({ name: 'sign_in_throttle' })
export class SignInThrottleEntity {
  /** `email:<sha256 of the lower-case email>`, `ip:<address>` or `sign-up:<address>`. */
  @PrimaryColumn('text')
  key!: string;

  @Column('integer', { default: 0 })
  failures!: number;

  @Column('timestamptz', { name: 'last_attempt_at', nullable: true })
  lastAttemptAt!: Date | null;

  @Column('timestamptz', { name: 'locked_until', nullable: true })
  lockedUntil!: Date | null;
}
