import { createHash } from 'node:crypto';
import type { ReplyOutcome } from '../pipeline/chat-inbound-pipeline.service';
import { DigitalStaffSandboxError } from './digital-staff-sandbox.error';

/** Prefix of every sandbox contact's external user id (and of the synthetic inbound message ids). */
export const SANDBOX_ID_PREFIX = 'sandbox-';

/** Longest contact name (chat_external_contact.name is varchar(128)). */
const MAX_NAME_CHARS = 128;

/**
 * The external user id of the sandbox contact of one evaluation session: `sandbox-` + the first 40 hex digits of
 * SHA-256(sessionKey) (48 characters; chat_external_contact.external_user_id holds 64). The same key always gives the
 * same id, so every turn of a case talks to the same contact; different keys give different contacts. Pure.
 * @param sessionKey the evaluation's session id (e.g. `<runId>:<caseId>:<repeat>`), any non-empty string
 */
export function sandboxExternalUserId(sessionKey: string): string {
  return `${SANDBOX_ID_PREFIX}${createHash('sha256').update(sessionKey, 'utf8').digest('hex').slice(0, 40)}`;
}

/** The sandbox contact's display name: `Evaluation sandbox <sessionKey>`, cut to 128 characters with `…`. Pure. */
export function sandboxContactName(sessionKey: string): string {
  const name = `Evaluation sandbox ${sessionKey.replace(/\s+/g, ' ').trim()}`;
  return name.length > MAX_NAME_CHARS ? `${name.slice(0, MAX_NAME_CHARS - 1)}…` : name;
}

/**
 * The reply text the evaluation gets for a pipeline outcome: the AI reply for `replied`; the out-of-hours message for
 * `out_of_hours` (empty when it was already sent in this window, i.e. the customer got nothing this time). Pure.
 * @throws DigitalStaffSandboxError with code `intervened`, `skipped` or `failed` naming the outcome's reason
 */
export function replyOfOutcome(outcome: ReplyOutcome): string {
  switch (outcome.status) {
    case 'replied':
      return outcome.text;
    case 'out_of_hours':
      return outcome.text ?? '';
    default:
      throw new DigitalStaffSandboxError(outcome.status, `the digital staff did not reply: ${outcome.status} (${outcome.reason})`);
  }
}
