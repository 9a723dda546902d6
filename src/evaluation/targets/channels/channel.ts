import { outboundCause } from '../../../common/outbound/outbound-client';

/**
 * Shared shapes and helpers of target channels: how the platform calls an agent under test
 * (evaluation-platform.md, What the service does: "executes evaluation scenarios against an evaluation target through
 * the target's channel"). A failing send rejects with a ChannelError, which the run turns into an errored case.
 */

/** One earlier turn of a case's conversation, oldest first. */
export interface ChatTurn {
  role: 'user' | 'assistant';
  content: string;
}

/** One message to send to a target, with the conversation so far. */
export interface ChannelRequest {
  message: string;
  /** Earlier turns of this case, oldest first; excludes `message`. */
  history: ChatTurn[];
  sessionId: string;
  /** Cancels the send (e.g. the run was cancelled); a cancelled send is never retried. */
  signal?: AbortSignal;
}

/** What a target replied. */
export interface ChannelReply {
  output: string;
  /** Wall-clock time of the HTTP exchange (request and body), in whole ms. */
  latencyMs: number;
  /** The parsed reply body, for debugging; configured secret values are redacted out of it. */
  raw?: unknown;
}

/** Anything that can deliver a message to a target and return its reply text. */
export interface TargetChannel {
  /**
   * Sends one message. Never retries by itself (see sendWithRetry).
   * @throws ChannelError on timeout, network failure, a non-2xx status or a reply without text
   */
  send(request: ChannelRequest): Promise<ChannelReply>;
}

/**
 * Why a send failed. Messages name the status or the cause, never header values, API keys or the URL (whose query
 * may hold a key).
 * - `retryable`: true for network errors, timeouts, HTTP 408, 429 and 5xx; false for other statuses, unusable replies
 *   and cancellation.
 * - `retryAfterMs`: the server's Retry-After (or Retry-After-Ms), in ms from now, when it sent one.
 * - `status`: the HTTP status when the target answered.
 */
export class ChannelError extends Error {
  override readonly name = 'ChannelError';
  readonly retryable: boolean;
  readonly retryAfterMs?: number;
  readonly status?: number;

  constructor(message: string, options: { retryable: boolean; retryAfterMs?: number; status?: number }) {
    super(message);
    this.retryable = options.retryable;
    if (options.retryAfterMs !== undefined) this.retryAfterMs = options.retryAfterMs;
    if (options.status !== undefined) this.status = options.status;
  }
}

/** Per-send timeout when a channel config gives none, in ms. */
export const DEFAULT_CHANNEL_TIMEOUT_MS = 30_000;

/** Largest accepted `timeoutMs`, in ms (10 minutes). */
export const MAX_CHANNEL_TIMEOUT_MS = 600_000;

/**
 * Parses an HTTP Retry-After value: delay-seconds (`"5"`) or an HTTP date. A date in the past gives 0.
 * @param value the header value, or null/undefined when absent
 * @param nowMs the current time in epoch ms (injectable for tests)
 * @returns the delay in ms, or undefined when absent or unparseable
 */
export function parseRetryAfter(value: string | null | undefined, nowMs: number = Date.now()): number | undefined {
  if (value == null) return undefined;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  // Date.parse alone takes "-3" for a year; an HTTP date always names its day and month.
  const date = /[a-z]{3}/i.test(text) ? Date.parse(text) : Number.NaN;
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

/**
 * The ChannelError for a non-2xx answer. 408, 429 and 5xx are retryable and carry the server's requested delay
 * (`retry-after-ms`, an OpenAI extension, wins over `retry-after`); other statuses fail at once.
 * @param detail a short, already redacted excerpt of the error body, or undefined
 */
export function statusError(status: number, headers: Headers, detail?: string): ChannelError {
  const retryable = status === 408 || status === 429 || status >= 500;
  const retryAfterMsHeader = headers.get('retry-after-ms');
  const retryAfterMs =
    retryAfterMsHeader !== null && /^\d+$/.test(retryAfterMsHeader.trim())
      ? Number(retryAfterMsHeader.trim())
      : parseRetryAfter(headers.get('retry-after'));
  const suffix = status >= 300 && status < 400 ? ' (redirects are not followed)' : detail ? `: ${detail}` : '';
  return new ChannelError(`target answered HTTP ${status}${suffix}`, { retryable, retryAfterMs, status });
}

/**
 * The ChannelError for a failure to reach the target (refused, reset, DNS). Retryable. The message names only the
 * system error code found on the error's cause chain.
 */
export function networkError(error: unknown): ChannelError {
  let code: string | undefined;
  for (let current: unknown = error, depth = 0; current && depth < 4 && !code; depth++) {
    const candidate = (current as { code?: unknown }).code;
    if (typeof candidate === 'string') code = candidate;
    current = (current as { cause?: unknown }).cause;
  }
  return new ChannelError(`could not reach the target${code ? ` (${code})` : ''}`, { retryable: true });
}

/**
 * The ChannelError for a failure of the outbound client (src/common/outbound), or undefined when `error` is none
 * (an SDK may wrap it: the cause chain is searched). Over the byte cap (EVAL_TARGET_MAX_RESPONSE_BYTES) and a refused
 * address are final (a retry would fail the same way); DNS and network failures are retryable. Timeouts and
 * cancellations are left to withDeadline. Messages never show the URL.
 */
export function outboundChannelError(error: unknown): ChannelError | undefined {
  const outbound = outboundCause(error);
  if (!outbound) return undefined;
  switch (outbound.code) {
    case 'response_too_large':
      return new ChannelError(`target ${outbound.detail}`, { retryable: false });
    case 'blocked_address':
      return new ChannelError(`target address ${outbound.detail}`, { retryable: false });
    case 'invalid_url':
    case 'too_many_redirects':
      return new ChannelError(`target call failed: ${outbound.detail}`, { retryable: false });
    case 'dns_error':
      return new ChannelError('could not reach the target (DNS)', { retryable: true });
    case 'network_error':
      return new ChannelError(`could not reach the target${outbound.systemCode ? ` (${outbound.systemCode})` : ''}`, { retryable: true });
    default:
      return undefined;
  }
}

/**
 * Runs `call` with a signal that aborts after `timeoutMs` ms or when `callerSignal` aborts, whichever comes first.
 * @throws ChannelError retryable "no reply within N ms" on timeout; non-retryable "cancelled" when the caller aborted;
 *   otherwise whatever `call` threw
 */
export async function withDeadline<T>(timeoutMs: number, callerSignal: AbortSignal | undefined, call: (signal: AbortSignal) => Promise<T>): Promise<T> {
  if (callerSignal?.aborted) throw cancelledError();
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  const onCallerAbort = () => controller.abort();
  callerSignal?.addEventListener('abort', onCallerAbort, { once: true });
  try {
    return await call(controller.signal);
  } catch (error) {
    // The abort surfaces as whatever the HTTP client throws; our own flags say which abort it was.
    if (timedOut) throw new ChannelError(`no reply within ${timeoutMs} ms`, { retryable: true });
    if (callerSignal?.aborted) throw cancelledError();
    throw error;
  } finally {
    clearTimeout(timer);
    callerSignal?.removeEventListener('abort', onCallerAbort);
  }
}

/** The non-retryable ChannelError for a send the caller cancelled. */
export function cancelledError(): ChannelError {
  return new ChannelError('the request was cancelled', { retryable: false });
}

const REDACTED = '[redacted]';

/**
 * Deep copy of a JSON value with every occurrence of the given secret strings replaced by `[redacted]`, so a target
 * that echoes its request headers cannot leak them into stored replies or error messages. Secrets shorter than
 * 4 characters are ignored (they would mangle ordinary text).
 */
export function redactSecrets<T>(value: T, secrets: readonly string[]): T {
  const usable = secrets.filter((secret) => secret.length >= 4).sort((a, b) => b.length - a.length);
  if (usable.length === 0) return value;
  const redact = (node: unknown): unknown => {
    if (typeof node === 'string') return usable.reduce((text, secret) => text.split(secret).join(REDACTED), node);
    if (Array.isArray(node)) return node.map(redact);
    // fromEntries defines own properties, so a "__proto__" key in a reply stays data.
    if (node && typeof node === 'object') return Object.fromEntries(Object.entries(node).map(([key, item]) => [key, redact(item)]));
    return node;
  };
  return redact(value) as T;
}

/** A short single-line excerpt of an error body for messages, secrets redacted; undefined when empty. */
export function excerpt(text: string, secrets: readonly string[], maxChars = 200): string | undefined {
  const line = redactSecrets(text, secrets).replace(/\s+/g, ' ').trim();
  if (!line) return undefined;
  return line.length > maxChars ? `${line.slice(0, maxChars)}…` : line;
}

/** Adds a problem when `value` is not an absolute http(s) URL without embedded credentials. Never echoes the value. */
export function checkHttpUrl(value: unknown, field: string, problems: string[]): void {
  if (typeof value !== 'string' || value.trim() === '') {
    problems.push(`${field} is required`);
    return;
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    problems.push(`${field} must be an absolute URL`);
    return;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') problems.push(`${field} must use http or https`);
  // Credentials in the URL would end up wherever the URL is shown; they belong in headers or the API key.
  if (url.username || url.password) problems.push(`${field} must not embed credentials`);
}

/** Adds a problem when an optional `timeoutMs` is not an integer between 1 and MAX_CHANNEL_TIMEOUT_MS. */
export function checkTimeout(value: unknown, problems: string[]): void {
  if (value === undefined) return;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_CHANNEL_TIMEOUT_MS) {
    problems.push(`timeoutMs must be an integer between 1 and ${MAX_CHANNEL_TIMEOUT_MS}`);
  }
}

/** True for a plain object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
