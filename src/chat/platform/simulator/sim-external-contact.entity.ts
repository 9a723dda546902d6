import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** Simulator: a customer (external contact) known to the simulated platform. */
@Entity({ name: 'chat_sim_external_contact' })
@Index('ux_chat_sim_external_contact_user', ['tenantId', 'platformCorpId', 'externalUserId'], { unique: true })
export class SimExternalContactEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'varchar', length: 64 })
  tenantId: string;

  @Column({ type: 'varchar', length: 64 })
  platformCorpId: string;

  @Column({ type: 'varchar', length: 64 })
  externalUserId: string;

  @Column({ type: 'varchar', length: 128 })
  name: string;

  /** 1 personal chat-app user, 2 user of another enterprise. */
  @Column({ type: 'smallint' })
  type: number;

  /** 0 unknown, 1 male, 2 female. */
  @Column({ type: 'smallint' })
  gender: number;

  @Column({ type: 'text', nullable: true })
  avatarUrl: string | null;

  @Column({ type: 'varchar', length: 64, nullable: true })
  unionId: string | null;

  @Column({ type: 'varchar', length: 128, nullable: true })
  corpName: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;
}
