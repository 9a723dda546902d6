import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/**
 * A customer group chat ("group room") of a corp, synced from the platform (chat-management-api.md, console
 * `{C}/workChat/{workChatUserId}/contact/room/{contactId}/ai/switch`, guide `syncGroup`). `id` is the room's
 * `contactId` on the console paths; `chatId` is the platform's group chat id. One row per (corp, chat id).
 */
@Entity({ name: 'chat_group_room' })
@Index('ux_chat_group_room_chat', ['tenantId', 'corpId', 'chatId'], { unique: true })
@Index('ix_chat_group_room_owner', ['tenantId', 'ownerWorkChatUserId', 'createdAt'])
export class GroupRoomEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'varchar', length: 63 })
  tenantId: string;

  /** Atrium's corp record (chat_work_corp.id). */
  @Column({ type: 'uuid' })
  corpId: string;

  /** The platform's group chat id (`chat_id`). */
  @Column({ type: 'varchar', length: 64 })
  chatId: string;

  @Column({ type: 'varchar', length: 128 })
  name: string;

  /** The owner: a staff member's platform userid (work_chat_user_id). */
  @Column({ type: 'varchar', length: 64 })
  ownerWorkChatUserId: string;

  /** The group notice, when set. */
  @Column({ type: 'text', nullable: true })
  notice: string | null;

  /** The platform's status: 0 normal, 1 owner left, 2 handover pending, 3 handover done. */
  @Column({ type: 'smallint', default: 0 })
  status: number;

  /** Members at the last sync. */
  @Column({ type: 'integer', default: 0 })
  memberCount: number;

  /** Whether the digital staff replies in this room (AI reply switch). */
  @Column({ type: 'boolean', default: true })
  aiEnabled: boolean;

  /** When the group was created on the platform. */
  @Column({ type: 'timestamptz', nullable: true })
  platformCreatedAt: Date | null;

  /** When the room was last synced from the platform. */
  @Column({ type: 'timestamptz', nullable: true })
  syncedAt: Date | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
