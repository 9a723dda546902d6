import { DigitalStaffSandboxError, type DigitalStaffTarget } from '../../../common/ports/digital-staff-target';
import { cancelledError, ChannelError, type ChannelReply, type ChannelRequest, checkTimeout, isRecord, type TargetChannel, withDeadline } from './channel';
import { isUuidShaped } from '../../../common/ids/uuid-shape';

/**
 * Configuration of a `digital_staff` channel: a digital staff of the chat wing, reached through the chat wing's
 * sandbox (issue 6, acceptance 7; DESIGN.md, External peers: "the chat wing's own digital staff").
 */
export interface DigitalStaffChannelConfig {
  /** The chat tenant (slug). */
  tenantId: string;
  /** chat_digital_staff.id (uuid). */
  digitalStaffId: string;
  /** Per-send timeout in ms (the whole pipeline: inbound message, rules, model, tools); default EVAL_DIGITAL_STAFF_TIMEOUT_MS. */
  timeoutMs?: number;
}

/** The part of the digital staff port the channel uses (the chat wing registers it: src/common/ports/digital-staff-target.ts). */
export type SandboxExchange = Pick<DigitalStaffTarget, 'exchange'>;

/** Longest kept excerpt of an unexpected error's message, characters. */
const MAX_DETAIL_CHARS = 300;

/**
 * Problems with a `digital_staff` channel config (shape only; whether the tenant and digital staff exist is checked
 * by the targets service through DigitalStaffSandbox.checkTarget): tenantId a non-empty string of at most 63
 * characters, digitalStaffId a UUID, timeoutMs 1..600 000.
 * @returns an empty array when the config is usable
 */
export function validateDigitalStaffChannelConfig(config: unknown): string[] {
  if (!isRecord(config)) return ['digital_staff channel config must be an object'];
  const problems: string[] = [];
  if (typeof config.tenantId !== 'string' || config.tenantId === '' || config.tenantId.length > 63) problems.push('tenantId must be a chat tenant slug');
  if (typeof config.digitalStaffId !== 'string' || !isUuidShaped(config.digitalStaffId)) problems.push('digitalStaffId must be a UUID');
  checkTimeout(config.timeoutMs, problems);
  return problems;
}

/**
 * The ChannelError for a failed sandbox exchange (the run's retry rules, sendWithRetry, act on `retryable`). Pure.
 * - a ChannelError (the deadline's timeout or cancellation) is returned as it is;
 * - DigitalStaffSandboxError `timeout` → retryable "no reply within N ms"; `failed` (the reply job gave up) → retryable;
 *   `cancelled` → the non-retryable cancellation;
 * - `intervened`, `skipped`, not found / disabled / no bound staff user, `contact_conflict` → not retryable (sending
 *   again would not change the answer), message naming the code and reason;
 * - anything else → not retryable (a retry would put the same customer message into the conversation again),
 *   message with a short excerpt of the error.
 * @param timeoutMs the send's timeout, for the timeout message
 */
export function digitalStaffChannelError(error: unknown, timeoutMs: number): ChannelError {
  if (error instanceof ChannelError) return error;
  if (error instanceof DigitalStaffSandboxError) {
    switch (error.code) {
      case 'timeout':
        return new ChannelError(`no reply within ${timeoutMs} ms`, { retryable: true });
      case 'cancelled':
        return cancelledError();
      case 'failed':
        return new ChannelError(`digital staff ${error.message}`, { retryable: true });
      default:
        return new ChannelError(`digital staff target (${error.code}): ${error.message}`, { retryable: false });
    }
  }
  const detail = (error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ').trim().slice(0, MAX_DETAIL_CHARS);
  return new ChannelError(`digital staff exchange failed: ${detail || 'unknown error'}`, { retryable: false });
}

/**
 * A channel to a chat digital staff (issue 6, acceptance 7): each send is one customer message through
 * DigitalStaffSandbox.exchange — the same inbound pipeline real customer messages take — with `sessionKey` =
 * ChannelRequest.sessionId, so every session (a run's case and repetition: `<runId>:<caseId>:<repeat>`; an
 * exploration session) gets its own sandbox contact, never a real customer, and its turns share that contact's
 * history.
 *
 * ChannelRequest.history is ignored: the conversation lives in the chat wing (the sandbox contact's stored messages),
 * which already holds every earlier turn of the session — sending it again would duplicate it. `output` is the
 * reply text (the out-of-hours message when out of service time); `raw` is `{ outcome }` (the pipeline's
 * ReplyOutcome). Errors are ChannelErrors per {@link digitalStaffChannelError}; a retried send puts the message
 * into the conversation again (the earlier, unanswered one stays in the history).
 * @param defaultTimeoutMs timeout when the config gives none, ms
 * @throws Error at creation when validateDigitalStaffChannelConfig reports problems
 */
export function createDigitalStaffChannel(config: DigitalStaffChannelConfig, sandbox: SandboxExchange, defaultTimeoutMs: number): TargetChannel {
  const problems = validateDigitalStaffChannelConfig(config);
  if (problems.length > 0) throw new Error(`invalid digital_staff channel config: ${problems.join('; ')}`);
  const timeoutMs = config.timeoutMs ?? defaultTimeoutMs;
  return {
    async send(request: ChannelRequest): Promise<ChannelReply> {
      try {
        const result = await withDeadline(timeoutMs, request.signal, (signal) =>
          sandbox.exchange({ tenantId: config.tenantId, digitalStaffId: config.digitalStaffId, sessionKey: request.sessionId, message: request.message, timeoutMs, signal }),
        );
        return { output: result.reply, latencyMs: Math.round(result.latencyMs), raw: { outcome: result.outcome } };
      } catch (error) {
        throw digitalStaffChannelError(error, timeoutMs);
      }
    },
  };
}
