import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** Simulator: a corp tag group (`kind` group, `groupId` null) or a tag in one (`kind` tag). */
@Entity({ name: 'chat_sim_tag' })
@Index('ux_chat_sim_tag_tag', ['tenantId', 'platformCorpId', 'tagId'], { unique: true })
@Index('ix_chat_sim_tag_group', ['tenantId', 'platformCorpId', 'groupId'])
export class SimTagEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'varchar', length: 64 })
  tenantId: string;

  @Column({ type: 'varchar', length: 64 })
  platformCorpId: string;

  @Column({ type: 'varchar', length: 8 })
  kind: 'group' | 'tag';

  /** The platform id of the group or tag. */
  @Column({ type: 'varchar', length: 64 })
  tagId: string;

  /** For tags: the group's tagId. */
  @Column({ type: 'varchar', length: 64, nullable: true })
  groupId: string | null;

  @Column({ type: 'varchar', length: 128 })
  name: string;

  @Column({ type: 'integer' })
  sortOrder: number;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;
}
