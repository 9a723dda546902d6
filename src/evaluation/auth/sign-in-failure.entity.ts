import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** One failed sign-in, kept for the rate limit (rows older than the window are removed as new ones arrive). */
@Entity({ name: 'eval_sign_in_failure' })
@Index('ix_eval_sign_in_failure_address_time', ['clientAddress', 'failedAt'])
export class SignInFailureEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;
  @Column({ type: 'varchar', length: 64 })
  clientAddress: string;
  @Column({ type: 'timestamptz' })
  failedAt: Date;
}
