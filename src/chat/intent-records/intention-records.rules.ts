import type { IntentionRecordStatus } from './intention-record.entity';

/**
 * Review of intent records (chat-management-api.md, "Intent record": ModifyCustomerIntentionRecord). An operator may
 * confirm or reject an open record, change their mind (confirmed ↔ rejected) or reopen it; `reviewedAt` is when the
 * current verdict was given, null while open. Pure, no I/O.
 * @param current the stored status and review time
 * @param next the status asked for (undefined: unchanged)
 * @param now the time of the change
 */
export function reviewIntentionRecord(
  current: { status: IntentionRecordStatus; reviewedAt: Date | null },
  next: IntentionRecordStatus | undefined,
  now: Date,
): { status: IntentionRecordStatus; reviewedAt: Date | null } {
  if (next === undefined || next === current.status) return { status: current.status, reviewedAt: current.reviewedAt };
  return { status: next, reviewedAt: next === 'open' ? null : now };
}
