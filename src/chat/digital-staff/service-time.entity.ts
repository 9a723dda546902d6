import { Column, CreateDateColumn, Entity, Index, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { ServiceTimeWindow } from './service-time.rules';

/**
 * The service time of a digital staff (chat-management-api.md, "Digital staff service time":
 * ChatDigitalStaffServiceTimeDto; Limits: one configuration per digital staff). Keyed by the digital staff id, so a
 * second configuration cannot exist: POST upserts on the primary key. `windows` are weekly local-time windows in
 * `timeZone` (IANA); see service-time.rules.ts. `version` counts the writes (1 on create, +1 per replacement).
 */
@Entity({ name: 'chat_digital_staff_service_time' })
@Index('ix_chat_digital_staff_service_time_tenant', ['tenantId', 'digitalStaffId'])
export class DigitalStaffServiceTimeEntity {
  /** The digital staff (chat_digital_staff.id) this configuration belongs to. */
  @PrimaryColumn({ type: 'uuid' })
  digitalStaffId: string;

  @Column({ type: 'varchar', length: 63 })
  tenantId: string;

  /** IANA time zone the windows are in, e.g. `Asia/Shanghai`. */
  @Column({ type: 'varchar', length: 64 })
  timeZone: string;

  /** Weekly windows `[{ day_of_week 1 (Monday)..7 (Sunday), start "HH:mm", end "HH:mm" }]`, end after start. */
  @Column({ type: 'jsonb' })
  windows: ServiceTimeWindow[];

  /** Reply sent to customers who write outside the windows, or null for none. */
  @Column({ type: 'text', nullable: true })
  outOfHoursMessage: string | null;

  /** Number of writes of this configuration (1 on create, +1 per replacement). */
  @Column({ type: 'integer', default: 1 })
  version: number;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
