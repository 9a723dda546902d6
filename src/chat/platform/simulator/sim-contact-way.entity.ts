import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/** What a simulated way is: a contact way (add a staff member) or a group join way (join a customer group). */
export type SimWayKind = 'contact_way' | 'join_way';

/** Settings of a way the columns do not hold (contact way: `style`; join way: auto-created room settings). */
export interface SimWayOptions {
  style?: number;
  autoCreateRoom?: boolean;
  roomBaseName?: string;
  roomBaseId?: number;
}

/** Simulator: a contact way or group join way with its generated QR code URL. */
@Entity({ name: 'chat_sim_contact_way' })
@Index('ux_chat_sim_contact_way_config', ['tenantId', 'platformCorpId', 'configId'], { unique: true })
export class SimContactWayEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'varchar', length: 64 })
  tenantId: string;

  @Column({ type: 'varchar', length: 64 })
  platformCorpId: string;

  @Column({ type: 'varchar', length: 64 })
  configId: string;

  @Column({ type: 'varchar', length: 16 })
  kind: SimWayKind;

  /** Contact ways: 1 single staff member, 2 several; null for join ways. */
  @Column({ type: 'smallint', nullable: true })
  type: number | null;

  /** 1 mini-program button, 2 QR code. */
  @Column({ type: 'smallint' })
  scene: number;

  @Column({ type: 'varchar', length: 64, nullable: true })
  state: string | null;

  @Column({ type: 'varchar', length: 255, nullable: true })
  remark: string | null;

  @Column({ type: 'boolean' })
  skipVerify: boolean;

  /** Staff user ids (contact ways). */
  @Column({ type: 'jsonb' })
  userIds: string[];

  /** Department ids (contact ways). */
  @Column({ type: 'jsonb' })
  departmentIds: number[];

  /** Group chat ids (join ways). */
  @Column({ type: 'jsonb' })
  chatIds: string[];

  @Column({ type: 'jsonb' })
  options: SimWayOptions;

  @Column({ type: 'text' })
  qrCode: string;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
