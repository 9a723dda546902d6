import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/**
 * A member of a group room (chat-management-api.md, Maintenance: DedupResultDto; "work-chat-group-member"), written
 * by the group sync from the platform's member list. There is deliberately no unique index on (room, member): rows
 * imported from the previous system (and written by concurrent syncs before the room lock existed) hold duplicates,
 * which the deprecated `dedup` operation removes. The sync itself locks the room row, so it writes no new duplicate.
 */
@Entity({ name: 'chat_group_member' })
@Index('ix_chat_group_member_room_member', ['tenantId', 'groupRoomId', 'memberUserId'])
@Index('ix_chat_group_member_chat', ['tenantId', 'chatId'])
export class GroupMemberEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'varchar', length: 63 })
  tenantId: string;

  @Column({ type: 'uuid' })
  corpId: string;

  /** The room (chat_group_room.id). */
  @Column({ type: 'uuid' })
  groupRoomId: string;

  /** The platform's group chat id of the room. */
  @Column({ type: 'varchar', length: 64 })
  chatId: string;

  /** The member's platform id: a staff userid (type 1) or a customer's external userid (type 2). */
  @Column({ type: 'varchar', length: 64 })
  memberUserId: string;

  /** 1 staff member, 2 customer. */
  @Column({ type: 'smallint' })
  memberType: number;

  @Column({ type: 'varchar', length: 128, nullable: true })
  name: string | null;

  /** 1 invited directly, 2 invited by link, 3 scanned a join way. */
  @Column({ type: 'smallint', default: 0 })
  joinScene: number;

  @Column({ type: 'timestamptz', nullable: true })
  joinedAt: Date | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
