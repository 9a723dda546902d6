import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/**
 * Simulator: a staff member's relation to a customer (the platform's `follow_user`): remark, tags, the state of the
 * contact way the customer came through. One per (staff member, customer).
 */
@Entity({ name: 'chat_sim_follow' })
@Index('ux_chat_sim_follow_user_contact', ['tenantId', 'platformCorpId', 'userId', 'externalUserId'], { unique: true })
@Index('ix_chat_sim_follow_contact', ['tenantId', 'platformCorpId', 'externalUserId'])
export class SimFollowEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'varchar', length: 64 })
  tenantId: string;

  @Column({ type: 'varchar', length: 64 })
  platformCorpId: string;

  @Column({ type: 'varchar', length: 64 })
  userId: string;

  @Column({ type: 'varchar', length: 64 })
  externalUserId: string;

  @Column({ type: 'varchar', length: 128, nullable: true })
  remark: string | null;

  @Column({ type: 'text', nullable: true })
  description: string | null;

  @Column({ type: 'varchar', length: 128, nullable: true })
  remarkCompany: string | null;

  @Column({ type: 'jsonb' })
  remarkMobiles: string[];

  /** Corp tag ids on this customer as this staff member sees them. */
  @Column({ type: 'jsonb' })
  tagIds: string[];

  @Column({ type: 'varchar', length: 64, nullable: true })
  state: string | null;

  /** 1 QR code, 0 unknown (the platform's add_way). */
  @Column({ type: 'smallint' })
  addWay: number;

  /** When the customer added the staff member. */
  @Column({ type: 'timestamptz' })
  addedAt: Date;
}
