import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { ExternalContactEntity } from '../contacts/external-contact.entity';
import { WorkChatCorpEntity } from '../corps/work-chat-corp.entity';
import { DigitalStaffEntity } from '../digital-staff/digital-staff.entity';
import { ChatInboundPipeline, type ReplyOutcome } from '../pipeline/chat-inbound-pipeline.service';
import type { InboundMessageEvent } from '../platform/chat-platform-events';
import { WorkChatUserEntity } from '../staff-users/work-chat-user.entity';
import { TenantEntity } from '../tenants/tenant.entity';
import { DigitalStaffSandboxError } from './digital-staff-sandbox.error';
import { replyOfOutcome, SANDBOX_ID_PREFIX, sandboxContactName, sandboxExternalUserId } from './sandbox.rules';
import { isUuidShaped } from '../../common/ids/uuid-shape';

/** One customer message to a digital staff in the sandbox. */
export interface SandboxExchangeInput {
  /** The chat tenant (slug). */
  tenantId: string;
  /** chat_digital_staff.id (uuid). */
  digitalStaffId: string;
  /** Names the sandbox conversation: one sandbox contact per key (an evaluation case's session id). */
  sessionKey: string;
  /** The customer's text. */
  message: string;
  /** Longest wait for the pipeline's outcome, counted from the call, in ms (≥ 1). */
  timeoutMs: number;
  /** Aborts the wait (the message, once received, stays in the conversation). */
  signal?: AbortSignal;
}

/** What the digital staff answered. */
export interface SandboxExchangeResult {
  /** The reply text: the AI reply (`replied`), or the out-of-hours message (`out_of_hours`; empty when already sent in the window). */
  reply: string;
  /** The pipeline's outcome for the message. */
  outcome: ReplyOutcome;
  /** From the call to the outcome, whole ms. */
  latencyMs: number;
}

/**
 * The chat wing's sandbox for an evaluation target that is a digital staff (issue 6, acceptance 7; DESIGN.md: "Where
 * one wing uses another (an evaluation target that is a chat digital staff), it goes through a provider that the
 * other wing exports from its module" — ChatModule exports this one).
 *
 * A sandbox conversation is a sandbox contact (chat_external_contact.sandbox = true) of the digital staff's oldest
 * bound staff user, one per session key: never a real customer, never sent to the platform (MessageDelivery marks its
 * messages `sent` without calling the platform), never synced. Each customer message goes through the same inbound
 * pipeline real platform messages take (ChatInboundPipeline.receive with a synthetic `message.received` event), so the
 * reply is built from the contact's stored conversation history, the digital staff's persona, rules and tools.
 */
@Injectable()
export class DigitalStaffSandbox {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly pipeline: ChatInboundPipeline,
  ) {}

  /**
   * Checks that a target naming (tenant, digital staff) can be stored: the tenant and the digital staff exist.
   * Disabled ones and missing staff-user bindings are accepted here (they may change before a run) and refused by
   * {@link exchange}.
   * @throws DigitalStaffSandboxError `tenant_not_found` or `digital_staff_not_found`, naming which
   */
  async checkTarget(tenantId: string, digitalStaffId: string): Promise<void> {
    await this.findTargetStaff(tenantId, digitalStaffId);
  }

  /**
   * Sends one customer message to the digital staff in the sandbox conversation of `sessionKey` and waits for the
   * pipeline's outcome:
   * 1. the tenant (active), the digital staff (enabled) and its oldest bound staff user (and that user's corp);
   * 2. get-or-create the sandbox contact (external user id `sandbox-<hash of sessionKey>`, AI on), race-safe
   *    (`INSERT … ON CONFLICT DO NOTHING` on ux_chat_external_contact_relation, then read);
   * 3. ChatInboundPipeline.receive with a synthetic text message (msgId `sandbox-<uuid>`), which stores it;
   * 4. ChatInboundPipeline.waitForOutcome for the rest of `timeoutMs`.
   * @returns the reply text for `replied` / `out_of_hours`, the outcome and the latency (ms)
   * @throws DigitalStaffSandboxError `tenant_not_found`, `digital_staff_not_found`, `digital_staff_disabled`,
   *   `no_staff_user`, `contact_conflict` (before anything is stored); `intervened`, `skipped`, `failed` (the
   *   outcome, with its reason); `timeout` (no outcome within timeoutMs); `cancelled` (signal aborted)
   */
  async exchange(input: SandboxExchangeInput): Promise<SandboxExchangeResult> {
    const started = Date.now();
    if (input.signal?.aborted) throw cancelled();
    const { staffUser, corp } = await this.resolveStaff(input.tenantId, input.digitalStaffId);
    const contact = await this.sandboxContact(staffUser, input.sessionKey);
    const event: InboundMessageEvent = {
      type: 'message.received',
      tenantId: input.tenantId,
      corpId: corp.id,
      platformCorpId: corp.workChatCorpId,
      occurredAt: new Date(),
      msgId: `${SANDBOX_ID_PREFIX}${randomUUID()}`,
      chatType: 'single',
      userId: staffUser.workChatUserId,
      externalUserId: contact.externalUserId,
      msgType: 'text',
      content: input.message,
    };
    const { messageId } = await this.pipeline.receive(event);
    const remainingMs = Math.max(1, input.timeoutMs - (Date.now() - started));
    let outcome: ReplyOutcome;
    try {
      outcome = await this.pipeline.waitForOutcome(input.tenantId, messageId, { timeoutMs: remainingMs, signal: input.signal });
    } catch (error) {
      if (input.signal?.aborted) throw cancelled();
      if (error instanceof Error && error.message === 'timeout') {
        throw new DigitalStaffSandboxError('timeout', `the digital staff gave no outcome within ${input.timeoutMs} ms`);
      }
      throw error;
    }
    return { reply: replyOfOutcome(outcome), outcome, latencyMs: Date.now() - started };
  }

  /**
   * The digital staff a target names, in an existing tenant (an active one with `activeTenant`), whatever the staff's
   * own status.
   * @throws DigitalStaffSandboxError `tenant_not_found` or `digital_staff_not_found`, naming which
   */
  private async findTargetStaff(tenantId: string, digitalStaffId: string, { activeTenant = false } = {}): Promise<DigitalStaffEntity> {
    const manager = this.dataSource.manager;
    const tenant = await manager.findOneBy(TenantEntity, { id: tenantId });
    if (!tenant || (activeTenant && tenant.status !== 'active')) {
      throw new DigitalStaffSandboxError('tenant_not_found', `chat tenant "${tenantId}" does not exist${tenant ? ' or is disabled' : ''}`);
    }
    const staff = isUuidShaped(digitalStaffId) ? await manager.findOneBy(DigitalStaffEntity, { tenantId, id: digitalStaffId }) : null;
    if (!staff) throw new DigitalStaffSandboxError('digital_staff_not_found', `digital staff ${digitalStaffId} does not exist in chat tenant "${tenantId}"`);
    return staff;
  }

  /**
   * The staff user the sandbox talks to: the oldest one bound to the digital staff, and its corp.
   * @throws DigitalStaffSandboxError tenant_not_found | digital_staff_not_found | digital_staff_disabled | no_staff_user
   */
  private async resolveStaff(tenantId: string, digitalStaffId: string): Promise<{ staffUser: WorkChatUserEntity; corp: WorkChatCorpEntity }> {
    const manager = this.dataSource.manager;
    const staff = await this.findTargetStaff(tenantId, digitalStaffId, { activeTenant: true });
    if (!staff.enabled) throw new DigitalStaffSandboxError('digital_staff_disabled', `digital staff "${staff.name}" (${staff.id}) is disabled`);
    const staffUser = await manager.findOne(WorkChatUserEntity, { where: { tenantId, digitalStaffId }, order: { createdAt: 'ASC', id: 'ASC' } });
    if (!staffUser) {
      throw new DigitalStaffSandboxError('no_staff_user', `no staff user is bound to digital staff "${staff.name}" (${staff.id}): bind one so the sandbox has someone to talk to`);
    }
    const corp = await manager.findOneBy(WorkChatCorpEntity, { tenantId, id: staffUser.corpId });
    if (!corp) throw new DigitalStaffSandboxError('no_staff_user', `the corp of staff user "${staffUser.workChatUserId}" no longer exists`);
    return { staffUser, corp };
  }

  /**
   * Gets or creates the sandbox contact of `sessionKey` under `staffUser`. Concurrent calls with the same key create
   * one row (the unique relation index and ON CONFLICT DO NOTHING).
   * @throws DigitalStaffSandboxError contact_conflict when a real (non-sandbox) contact holds the id
   */
  private async sandboxContact(staffUser: WorkChatUserEntity, sessionKey: string): Promise<ExternalContactEntity> {
    const key = { tenantId: staffUser.tenantId, corpId: staffUser.corpId, externalUserId: sandboxExternalUserId(sessionKey), workChatUserId: staffUser.workChatUserId };
    const now = new Date();
    await this.dataSource.manager
      .createQueryBuilder()
      .insert()
      .into(ExternalContactEntity)
      .values({
        ...key,
        name: sandboxContactName(sessionKey),
        tags: [],
        profile: {},
        aiEnabled: true,
        sandbox: true,
        addedAt: now,
        state: null,
        stateAt: null,
      })
      .orIgnore()
      .execute();
    const contact = await this.dataSource.manager.findOneByOrFail(ExternalContactEntity, key);
    if (!contact.sandbox) throw new DigitalStaffSandboxError('contact_conflict', `a real contact holds the sandbox id ${key.externalUserId}`);
    return contact;
  }
}

/** The error of an exchange whose caller aborted. */
function cancelled(): DigitalStaffSandboxError {
  return new DigitalStaffSandboxError('cancelled', 'the exchange was cancelled');
}
