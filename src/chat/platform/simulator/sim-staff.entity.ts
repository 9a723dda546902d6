import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { PlatformStaffStatus } from '../chat-platform.port';

/** Simulator: a staff member (corp member) on the simulated platform. Created by injection or when first named. */
@Entity({ name: 'chat_sim_staff' })
@Index('ux_chat_sim_staff_user', ['tenantId', 'platformCorpId', 'userId'], { unique: true })
export class SimStaffEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'varchar', length: 64 })
  tenantId: string;

  @Column({ type: 'varchar', length: 64 })
  platformCorpId: string;

  @Column({ type: 'varchar', length: 64 })
  userId: string;

  @Column({ type: 'varchar', length: 128 })
  name: string;

  @Column({ type: 'varchar', length: 32, nullable: true })
  mobile: string | null;

  @Column({ type: 'jsonb' })
  departmentIds: number[];

  /** 1 active, 2 disabled, 4 not activated, 5 left. */
  @Column({ type: 'smallint' })
  status: PlatformStaffStatus;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;
}
