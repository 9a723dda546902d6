import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/**
 * One out-of-hours message sent to a contact in one out-of-service window (issue 6, "The inbound pipeline": sent
 * once per window per contact). `windowStart` is out-of-hours.rules.ts `outOfServiceWindowStart`; the unique index
 * (tenant, contact, window start) makes the second message of a window insert nothing, so it sends nothing.
 */
@Entity({ name: 'chat_out_of_hours_notice' })
@Index('ux_chat_out_of_hours_notice_window', ['tenantId', 'contactId', 'windowStart'], { unique: true })
export class OutOfHoursNoticeEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'varchar', length: 63 })
  tenantId: string;

  /** The contact (chat_external_contact.id). */
  @Column({ type: 'uuid' })
  contactId: string;

  /** The digital staff whose service time it was (chat_digital_staff.id). */
  @Column({ type: 'uuid' })
  digitalStaffId: string;

  /** Start of the out-of-service window (UTC). */
  @Column({ type: 'timestamptz' })
  windowStart: Date;

  /** The inbound message that got the notice (chat_message.id). */
  @Column({ type: 'uuid' })
  inboundMessageId: string;

  /** The out-of-hours message sent (chat_message.id). */
  @Column({ type: 'uuid' })
  messageId: string;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;
}
