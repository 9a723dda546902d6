/**
 * Why a sandbox exchange (DigitalStaffSandbox.exchange) produced no reply text (issue 6, acceptance 7):
 * - `tenant_not_found`: no such chat tenant, or it is disabled;
 * - `digital_staff_not_found` / `digital_staff_disabled`: the digital staff is missing in the tenant, or disabled;
 * - `no_staff_user`: no staff user is bound to the digital staff (the sandbox needs one to talk to);
 * - `contact_conflict`: a real customer holds the sandbox contact's external user id (never expected);
 * - `intervened` / `skipped` / `failed`: the pipeline's outcome for the message (ReplyOutcome), `reason` its reason;
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
 * The error DigitalStaffSandbox throws; `code` says which case (see {@link DigitalStaffSandboxErrorCode}), the
 * message names the tenant, digital staff or outcome reason. The evaluation wing's `digital_staff` channel maps it
 * to a ChannelError. Messages never hold customer text.
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
