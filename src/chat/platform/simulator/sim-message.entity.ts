import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** An attachment as the simulator records it (the bytes are not kept, only their size and SHA-256). */
export interface SimMessageMedia {
  mediaId?: string;
  fileName?: string;
  contentType?: string;
  sizeBytes?: number;
  sha256?: string;
  url?: string;
}

/**
 * Simulator: a message on the simulated platform — sent by the wing (`outbound`: to a customer, a group chat or a
 * robot webhook) or injected as coming from a customer (`inbound`).
 */
@Entity({ name: 'chat_sim_message' })
@Index('ux_chat_sim_message_msg', ['tenantId', 'msgId'], { unique: true })
@Index('ix_chat_sim_message_contact', ['tenantId', 'platformCorpId', 'externalUserId', 'sentAt'])
@Index('ix_chat_sim_message_chat', ['tenantId', 'platformCorpId', 'chatId', 'sentAt'])
export class SimMessageEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'varchar', length: 64 })
  tenantId: string;

  /** Null for robot webhook messages (a robot key is not tied to corp credentials). */
  @Column({ type: 'varchar', length: 64, nullable: true })
  platformCorpId: string | null;

  @Column({ type: 'varchar', length: 64 })
  msgId: string;

  @Column({ type: 'varchar', length: 8 })
  direction: 'inbound' | 'outbound';

  @Column({ type: 'varchar', length: 8 })
  chatType: 'single' | 'group' | 'robot';

  /** Sender (outbound) or receiving staff member (inbound single). */
  @Column({ type: 'varchar', length: 64, nullable: true })
  userId: string | null;

  @Column({ type: 'varchar', length: 64, nullable: true })
  externalUserId: string | null;

  @Column({ type: 'varchar', length: 64, nullable: true })
  chatId: string | null;

  /** SHA-256 of the robot webhook key (the key itself is a secret and is not stored). */
  @Column({ type: 'char', length: 64, nullable: true })
  robotKeyHash: string | null;

  @Column({ type: 'varchar', length: 16 })
  msgType: string;

  @Column({ type: 'text', nullable: true })
  content: string | null;

  @Column({ type: 'jsonb', nullable: true })
  media: SimMessageMedia | null;

  /** Robot messages: mentioned user ids and mobiles. */
  @Column({ type: 'jsonb', nullable: true })
  mentions: { userIds: string[]; mobiles: string[] } | null;

  @Column({ type: 'timestamptz' })
  sentAt: Date;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;
}
