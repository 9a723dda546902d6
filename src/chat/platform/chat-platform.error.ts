import { ProblemException } from '../../common/http/problem-details';
import { type ChatPlatformFailureKind, classifyPlatformFailure, errcodeRule } from './platform-errcodes';

/** Longest platform `errmsg` kept in an error, in characters (platform messages carry hints and links). */
export const MAX_ERRMSG_LENGTH = 300;

/** What a {@link ChatPlatformError} is built from. */
export interface ChatPlatformFailure {
  /** The port operation that failed, e.g. `createContactWay`. */
  operation: string;
  kind: ChatPlatformFailureKind;
  /** The platform's `errcode` (kind `errcode`). */
  errcode?: number;
  /** The platform's `errmsg`, already free of secrets. */
  errmsg?: string;
  /** The platform's HTTP status (kind `http_status`). */
  httpStatus?: number;
  /** A cause to add to the detail, for transport failures (never a URL: ours carry the access token). */
  reason?: string;
}

function detailOf(failure: ChatPlatformFailure): string {
  const what = `Chat platform call ${failure.operation} failed`;
  switch (failure.kind) {
    case 'errcode':
      return `${what}: errcode ${failure.errcode}${failure.errmsg ? ` (${failure.errmsg})` : ''}. ${errcodeRule(failure.errcode ?? 0).hint}`;
    case 'http_status':
      return `${what}: the platform answered HTTP ${failure.httpStatus}${failure.reason ? ` (${failure.reason})` : ''}.`;
    case 'timeout':
      return `${what}: the platform did not answer in time${failure.reason ? ` (${failure.reason})` : ''}.`;
    case 'network':
      return `${what}: the platform could not be reached${failure.reason ? ` (${failure.reason})` : ''}.`;
    case 'invalid_response':
      return `${what}: the platform's reply was not understood${failure.reason ? ` (${failure.reason})` : ''}.`;
  }
}

/**
 * A failure of the chat platform (either adapter). It is a ProblemException, so the global filter renders it as
 * `application/problem+json` with the status from platform-errcodes.ts (400/409/413 for input the platform
 * rejected, 502 for platform failures, 504 for timeouts) and the extension members `platformOperation`,
 * `platformErrorCode` and `platformErrorMessage` (when the platform gave them). Jobs read `retryable` to decide
 * whether to try again later.
 */
export class ChatPlatformError extends ProblemException {
  override readonly name = 'ChatPlatformError';
  readonly operation: string;
  readonly kind: ChatPlatformFailureKind;
  readonly errcode?: number;
  readonly errmsg?: string;
  readonly httpStatus?: number;
  /** True when the same call may succeed later (busy, rate limited, 5xx, network, timeout). */
  readonly retryable: boolean;

  constructor(failure: ChatPlatformFailure) {
    const errmsg = failure.errmsg === undefined ? undefined : failure.errmsg.slice(0, MAX_ERRMSG_LENGTH);
    const { status, retryable } = classifyPlatformFailure(failure);
    const extensions: Record<string, unknown> = { platformOperation: failure.operation };
    if (failure.errcode !== undefined) extensions.platformErrorCode = failure.errcode;
    if (errmsg !== undefined) extensions.platformErrorMessage = errmsg;
    super(status, detailOf({ ...failure, errmsg }), extensions);
    this.operation = failure.operation;
    this.kind = failure.kind;
    if (failure.errcode !== undefined) this.errcode = failure.errcode;
    if (errmsg !== undefined) this.errmsg = errmsg;
    if (failure.httpStatus !== undefined) this.httpStatus = failure.httpStatus;
    this.retryable = retryable;
  }

  /** A refusal with the platform's errcode and errmsg. */
  static errcode(operation: string, errcode: number, errmsg?: string): ChatPlatformError {
    return new ChatPlatformError({ operation, kind: 'errcode', errcode, errmsg });
  }
}

/**
 * Removes every occurrence of each secret (corp secret, access token, robot key) from `text`, for platform messages
 * that are put into errors. Secrets shorter than 4 characters are ignored (they would mangle ordinary words).
 */
export function redactSecrets(text: string, secrets: readonly (string | undefined)[]): string {
  let result = text;
  for (const secret of secrets) if (secret && secret.length >= 4) result = result.split(secret).join('[redacted]');
  return result;
}
