import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * That a staff member has a group room (owns it, or is one of its staff members), with the room's sort keys copied:
 * what the staff member's room list reads in page order (issue 23 acceptance 1; migration 1795600760000, whose
 * triggers keep these rows exact on every write of the rooms and members; the app never writes them). Its sort
 * indexes `(tenant_id, work_chat_user_id, <key>, group_room_id)` belong to the migration.
 */
@Entity({ name: 'chat_group_room_access' })
@Index('ix_chat_group_room_access_room', ['groupRoomId'])
export class GroupRoomAccessEntity {
  @PrimaryColumn({ type: 'varchar', length: 63 })
  tenantId: string;

  /** The staff member's platform userid. */
  @PrimaryColumn({ type: 'varchar', length: 64 })
  workChatUserId: string;

  /** The room (chat_group_room.id). */
  @PrimaryColumn({ type: 'uuid' })
  groupRoomId: string;

  /** The room's `createdAt`. */
  @Column({ type: 'timestamptz' })
  createdAt: Date;

  /** The room's `updatedAt`. */
  @Column({ type: 'timestamptz' })
  updatedAt: Date;

  /** The room's `name`. */
  @Column({ type: 'varchar', length: 128 })
  name: string;

  /** The room's `memberCount`. */
  @Column({ type: 'integer' })
  memberCount: number;
}
