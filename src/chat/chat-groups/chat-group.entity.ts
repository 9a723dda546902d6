import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/** How a chat group hands a new chat to one of its members. */
export const ROUTING_STRATEGIES = ['round_robin', 'least_busy', 'manual'] as const;
/**
 * - `round_robin`: members take new chats in turn.
 * - `least_busy`: the member with the fewest open chats takes it.
 * - `manual`: chats wait in the group's queue until a member picks one.
 */
export type RoutingStrategy = (typeof ROUTING_STRATEGIES)[number];

/**
 * A chat group of a tenant (chat-management-api.md, "Channel and chat group": ChatGroupDto): a team that handles
 * the chats arriving through some channels — its staff users (members), the digital staff that answers first, and
 * how chats are routed to members when a person takes over. A channel belongs to at most one chat group (so every
 * chat has exactly one team). Served at `/api/console/chat/group/{id}` with the tenant from the token. The name is
 * unique within the tenant. Every index leads with `tenant_id`.
 */
@Entity({ name: 'chat_chat_group' })
@Index('ux_chat_chat_group_tenant_name', ['tenantId', 'name'], { unique: true })
@Index('ix_chat_chat_group_tenant_created', ['tenantId', 'createdAt'])
export class ChatGroupEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'varchar', length: 63 })
  tenantId: string;

  @Column({ type: 'varchar', length: 100 })
  name: string;

  @Column({ type: 'varchar', length: 500, nullable: true })
  description: string | null;

  /** Channels (chat_channel.id) whose chats this group handles, sorted; a channel is in at most one group. */
  @Column({ type: 'jsonb' })
  channelIds: string[];

  /** Staff users (chat_work_user.id) who take chats over from the digital staff, sorted. */
  @Column({ type: 'jsonb' })
  memberUserIds: string[];

  /** The digital staff that answers first (chat_digital_staff.id), or null for people only. */
  @Column({ type: 'uuid', nullable: true })
  digitalStaffId: string | null;

  /** See {@link RoutingStrategy}. */
  @Column({ type: 'varchar', length: 16, default: 'round_robin' })
  routingStrategy: RoutingStrategy;

  /** Most open chats one member handles at a time; null = no limit. */
  @Column({ type: 'integer', nullable: true })
  maxConcurrentChatsPerMember: number | null;

  /** A disabled group takes no new chats. */
  @Column({ type: 'boolean', default: true })
  enabled: boolean;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
