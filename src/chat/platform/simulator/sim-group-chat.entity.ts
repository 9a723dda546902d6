import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** A member of a simulated group chat; `type` 1 staff member, 2 customer; `joinedAt` ISO 8601. */
export interface SimGroupMember {
  userId: string;
  type: 1 | 2;
  joinedAt: string;
  joinScene: number;
  name?: string;
}

/** Simulator: a customer group chat. */
@Entity({ name: 'chat_sim_group_chat' })
@Index('ux_chat_sim_group_chat_chat', ['tenantId', 'platformCorpId', 'chatId'], { unique: true })
@Index('ix_chat_sim_group_chat_owner', ['tenantId', 'platformCorpId', 'ownerUserId'])
export class SimGroupChatEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'varchar', length: 64 })
  tenantId: string;

  @Column({ type: 'varchar', length: 64 })
  platformCorpId: string;

  @Column({ type: 'varchar', length: 64 })
  chatId: string;

  @Column({ type: 'varchar', length: 128 })
  name: string;

  @Column({ type: 'varchar', length: 64 })
  ownerUserId: string;

  @Column({ type: 'text', nullable: true })
  notice: string | null;

  /** 0 normal, 1 owner left, 2 handover pending, 3 handover done. */
  @Column({ type: 'smallint' })
  status: number;

  @Column({ type: 'jsonb' })
  members: SimGroupMember[];

  @Column({ type: 'jsonb' })
  adminUserIds: string[];

  @Column({ type: 'timestamptz' })
  createdAt: Date;
}
