import { Global, Injectable, Module } from '@nestjs/common';

/**
 * The port between the evaluation wing and the chat wing for `digital_staff` targets (issue 15 item 8; DESIGN.md,
 * "Wings meet at ports, not at internals"). The evaluation wing consumes it (its `digital_staff` target channel); the
 * chat wing registers its sandbox into {@link DigitalStaffTargetRegistry} at start. Both wings import only this file,
 * never each other's folders, which test/../wing-boundaries.spec.ts enforces.
 */

/** The pipeline's outcome for one sandbox message (the chat wing's ReplyOutcome, same shape). */
export type DigitalStaffReplyOutcome =
  | { status: 'replied'; messageId: string; text: string }
  | { status: 'out_of_hours'; messageId: string | null; text: string | null }
  | { status: 'intervened'; reason: string }
  | { status: 'skipped'; reason: string }
  | { status: 'failed'; reason: string };

/** One customer message to a digital staff in the sandbox. */
export interface DigitalStaffExchangeInput {
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
export interface DigitalStaffExchangeResult {
  /** The reply text: the AI reply (`replied`), or the out-of-hours message (`out_of_hours`; empty when already sent in the window). */
  reply: string;
  /** The pipeline's outcome for the message. */
  outcome: DigitalStaffReplyOutcome;
  /** From the call to the outcome, whole ms. */
  latencyMs: number;
}

/**
 * Why an exchange produced no reply text (issue 6, acceptance 7):
 * - `tenant_not_found`: no such chat tenant, or it is disabled;
 * - `digital_staff_not_found` / `digital_staff_disabled`: the digital staff is missing in the tenant, or disabled;
 * - `no_staff_user`: no staff user is bound to the digital staff (the sandbox needs one to talk to);
 * - `contact_conflict`: a real customer holds the sandbox contact's external user id (never expected);
 * - `intervened` / `skipped` / `failed`: the pipeline's outcome for the message, `reason` its reason;
 * - `timeout`: no outcome within the exchange's timeoutMs;
 * - `cancelled`: the caller's signal aborted.
 */
export type DigitalStaffSandboxErrorCode =
  | 'tenant_not_found'
  | 'digital_staff_not_found'
  | 'digital_staff_disabled'
  | 'no_staff_user'
  | 'contact_conflict'
  | 'intervened'
  | 'skipped'
  | 'failed'
  | 'timeout'
  | 'cancelled';

/**
 * The error a {@link DigitalStaffTarget} throws; `code` says which case, the message names the tenant, digital staff
 * or outcome reason. The evaluation wing's `digital_staff` channel maps it to a ChannelError. Messages never hold
 * customer text.
 */
export class DigitalStaffSandboxError extends Error {
  override readonly name = 'DigitalStaffSandboxError';

  constructor(
    readonly code: DigitalStaffSandboxErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** What the chat wing offers the evaluation wing: a digital staff reached as an evaluation target. */
export interface DigitalStaffTarget {
  /**
   * Checks that a target naming (tenant, digital staff) can be stored.
   * @throws DigitalStaffSandboxError `tenant_not_found` or `digital_staff_not_found`
   */
  checkTarget(tenantId: string, digitalStaffId: string): Promise<void>;
  /**
   * One customer message through the chat wing's inbound pipeline, waiting for its outcome.
   * @throws DigitalStaffSandboxError (see {@link DigitalStaffSandboxErrorCode})
   */
  exchange(input: DigitalStaffExchangeInput): Promise<DigitalStaffExchangeResult>;
}

/**
 * Where the chat wing registers its {@link DigitalStaffTarget} at start-up and the evaluation wing finds it when a
 * `digital_staff` target is created or called. Empty when the chat wing isn't loaded.
 */
@Injectable()
export class DigitalStaffTargetRegistry {
  private target?: DigitalStaffTarget;

  /** Registers the adapter (one per app; a second registration replaces the first). */
  register(target: DigitalStaffTarget): void {
    this.target = target;
  }

  /** @returns the registered adapter, or undefined when no wing registered one */
  get(): DigitalStaffTarget | undefined {
    return this.target;
  }
}

/** Makes {@link DigitalStaffTargetRegistry} one instance visible to every wing (global, imported by AppModule). */
@Global()
@Module({ providers: [DigitalStaffTargetRegistry], exports: [DigitalStaffTargetRegistry] })
export class DigitalStaffTargetPortModule {}
