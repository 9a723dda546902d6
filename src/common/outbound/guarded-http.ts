import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { type Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type RequestOptions } from 'node:http';
import { type Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { allowedAddresses, OutboundAddressRefusedError, OutboundDnsError, type OutboundPolicy, type Resolver } from './address-policy';

/**
 * The one HTTP client for calls to URLs Atrium does not own (issue 19 item 1; DESIGN.md, Trust boundaries: tool
 * providers, evaluation targets, models, webhooks, the chat platform). Per hop, before any connection:
 * 1. only `http:` and `https:` URLs without credentials;
 * 2. the host is judged by the use's {@link OutboundPolicy} (allowedAddresses): a literal in any spelling as it is, a
 *    name through EVERY DNS answer — one refused answer refuses the call;
 * 3. the connection is pinned to the judged answers (a custom `lookup`), so a second DNS answer (rebinding) cannot
 *    move it;
 * 4. redirects (301, 302, 303, 307, 308) are followed by hand, up to `maxRedirects`, each target judged the same way;
 *    credentials (`sensitiveHeaders`) are dropped when the origin changes; 303 (and 301/302 after a POST) become GET
 *    without a body.
 * One deadline (`timeoutMs`) covers DNS, connections, redirects and reading the reply (a slow drip included); the
 * reply is read as a stream and the exchange aborted as soon as it passes `maxResponseBytes`, so the process never
 * holds more than the cap per call.
 */

/** Why an outbound request failed. */
export type OutboundErrorCode = 'invalid_url' | 'blocked_address' | 'dns_error' | 'timeout' | 'too_many_redirects' | 'response_too_large' | 'network_error' | 'aborted';

/**
 * A failed outbound request; `message` is readable and holds no secret (URLs are shown without their query).
 * `detail` says the same without any URL, for callers that must not show the peer's URL (evaluation targets).
 */
export class OutboundRequestError extends Error {
  override name = 'OutboundRequestError';
  readonly detail: string;
  /** For network_error: the socket error's code (ECONNREFUSED, ECONNRESET …), when it had one. */
  readonly systemCode?: string;
  constructor(
    readonly code: OutboundErrorCode,
    message: string,
    detail?: string,
    cause?: unknown,
  ) {
    super(message);
    this.detail = detail ?? message;
    const systemCode = (cause as { code?: unknown } | undefined)?.code;
    if (typeof systemCode === 'string') this.systemCode = systemCode;
  }
}

/**
 * The reply passed the byte cap: the exchange was aborted after at most `limitBytes` bytes were held. The message
 * names the cap and, when given, the variable that sets it (e.g. EVAL_TARGET_MAX_RESPONSE_BYTES).
 */
export class OutboundReplyTooLargeError extends OutboundRequestError {
  override name = 'OutboundReplyTooLargeError';
  constructor(
    readonly limitBytes: number,
    readonly limitName: string | undefined,
    detail: string,
  ) {
    const cap = `the cap is ${limitBytes} bytes${limitName ? ` (${limitName})` : ''}`;
    super('response_too_large', `${detail}; ${cap}.`, `the reply is over the byte cap: ${cap}`);
  }
}

export type { Resolver } from './address-policy';

/** What to send. */
export interface GuardedRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  /** Deadline of the whole exchange (DNS, connect, redirects, body), ms. */
  timeoutMs: number;
  maxResponseBytes: number;
  /** The variable that sets `maxResponseBytes`, named in OutboundReplyTooLargeError. */
  maxResponseBytesName?: string;
  /** Redirects followed; past it too_many_redirects (or, with `returnRedirects`, the 3xx reply itself). */
  maxRedirects: number;
  /** Return a 3xx reply as the result instead of following it (fetch's `redirect: 'manual'`). */
  returnRedirects?: boolean;
  /** Header names (lower case) dropped when a redirect leaves the origin (Authorization is always dropped). */
  sensitiveHeaders?: string[];
  /** Aborts the exchange (the caller's cancellation); rejects with code `aborted`. */
  signal?: AbortSignal;
  /** Keep-alive agents (one pair per use); sockets are still opened only to judged addresses. Default: none. */
  agents?: { http?: HttpAgent; https?: HttpsAgent };
}

/** The final reply. */
export interface GuardedResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** URL of the final hop. */
  url: string;
  redirects: number;
}

/**
 * The addresses one hop may connect to, as judged by the policy, and the `lookup` that pins a connection to them.
 * @see AddressDecisionCache
 */
export interface JudgedHop {
  addresses: LookupAddress[];
  lookup: LookupFunction;
}

/**
 * Allowed-hop decisions of one use, per `protocol//host:port`, so a busy caller (an evaluation run's thousands of
 * cases to one target) does not judge the same host for every request (issue 14 acceptance 3). Only allowed hops
 * are kept, with the addresses they were judged on; a request that takes a kept decision connects to those addresses
 * only (the pinned `lookup`), so a later DNS answer (rebinding) can never move it. An IP literal's decision depends
 * on nothing but the policy: kept until the policy changes. A name's is kept `nameTtlMs` (ms), then resolved and
 * judged again. Every decision is dropped when the policy object changes (e.g. a new protected port).
 */
export class AddressDecisionCache {
  private readonly entries = new Map<string, { hop: JudgedHop; until: number }>();
  private policy?: OutboundPolicy;

  /**
   * @param nameTtlMs how long a host name's judged addresses are used before it is resolved again, ms (0: never kept)
   * @param maxEntries hosts kept at most (past it the oldest is dropped)
   * @param now clock, ms (tests inject one)
   */
  constructor(
    readonly nameTtlMs = 1_000,
    private readonly maxEntries = 256,
    private readonly now: () => number = Date.now,
  ) {}

  /** The kept decision for `url` under `policy`, or undefined. */
  get(url: URL, policy: OutboundPolicy): JudgedHop | undefined {
    if (policy !== this.policy) return undefined;
    const key = hopKey(url);
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.until <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.hop;
  }

  /** Keeps an allowed decision for `url` under `policy` (see the class comment for how long). */
  set(url: URL, policy: OutboundPolicy, hop: JudgedHop): void {
    if (policy !== this.policy) {
      this.entries.clear();
      this.policy = policy;
    }
    const literal = isIpLiteralHost(url.hostname);
    if (!literal && this.nameTtlMs <= 0) return;
    const key = hopKey(url);
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, { hop, until: literal ? Infinity : this.now() + this.nameTtlMs });
  }
}

function hopKey(url: URL): string {
  return `${url.protocol}//${url.host}`;
}

/** True for a host the URL parser already made an IP address (IPv6 in brackets, or four dotted decimals). */
function isIpLiteralHost(hostname: string): boolean {
  return hostname.startsWith('[') || /^\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

/** Why an exchange stopped before its end: the one deadline, or the caller's signal. */
type StopReason = 'timeout' | 'aborted';

/**
 * The one deadline and the caller's cancellation of an exchange, without an AbortController per request: whatever
 * waits at the moment (DNS, the request, the body) registers one `onStop`, which the timer or the caller's signal
 * calls once.
 */
class Exchange {
  reason?: StopReason;
  private onStop?: () => void;
  private readonly timer: NodeJS.Timeout;
  private readonly signal?: AbortSignal;
  private readonly onCallerAbort = () => this.stop('aborted');

  constructor(readonly timeoutMs: number, signal: AbortSignal | undefined) {
    this.timer = setTimeout(() => this.stop('timeout'), timeoutMs);
    if (signal) {
      this.signal = signal;
      if (signal.aborted) this.reason = 'aborted';
      else signal.addEventListener('abort', this.onCallerAbort, { once: true });
    }
  }

  /** Registers what to do when the exchange stops (replacing the previous one); runs it at once when already stopped. */
  whenStopped(onStop: (() => void) | undefined): void {
    this.onStop = onStop;
    if (this.reason && onStop) onStop();
  }

  /** The error of a stopped exchange. */
  error(): OutboundRequestError {
    return this.reason === 'aborted'
      ? new OutboundRequestError('aborted', 'The request was cancelled.')
      : new OutboundRequestError('timeout', `No complete reply within ${this.timeoutMs} ms.`);
  }

  /** Clears the timer and the caller's listener. */
  end(): void {
    clearTimeout(this.timer);
    this.onStop = undefined;
    this.signal?.removeEventListener('abort', this.onCallerAbort);
  }

  private stop(reason: StopReason): void {
    if (this.reason) return;
    this.reason = reason;
    const onStop = this.onStop;
    this.onStop = undefined;
    onStop?.();
  }
}

/** Status codes followed as redirects. */
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * Sends the request under the policy (see the module comment).
 * @param resolve DNS resolution (default: node:dns lookup, all answers)
 * @param decisions allowed-hop decisions kept across calls of one use (see AddressDecisionCache); default none
 * @throws OutboundRequestError (OutboundReplyTooLargeError past the cap)
 */
export async function guardedHttpRequest(request: GuardedRequest, policy: OutboundPolicy, resolve: Resolver = systemResolver, decisions?: AddressDecisionCache): Promise<GuardedResponse> {
  const exchange = new Exchange(request.timeoutMs, request.signal);
  try {
    let url = parseUrl(request.url);
    let method = request.method.toUpperCase();
    let body = request.body;
    let headers = request.headers;
    for (let redirects = 0; ; redirects += 1) {
      if (exchange.reason) throw exchange.error();
      let hop = decisions?.get(url, policy);
      if (!hop) {
        const addresses = await stoppable(judged(url, policy, resolve), exchange);
        hop = { addresses, lookup: pinnedLookup(addresses) };
        decisions?.set(url, policy, hop);
      }
      const followable = !(request.returnRedirects && redirects >= request.maxRedirects);
      const hopResult = await exchangeHop(url, method, headers, body, hop.lookup, exchange, request, followable);
      const { response } = hopResult;
      const status = response.statusCode ?? 0;
      if (hopResult.location !== undefined) {
        response.destroy();
        if (redirects >= request.maxRedirects) throw new OutboundRequestError('too_many_redirects', `More than ${request.maxRedirects} redirects (last to ${describe(url)}).`);
        const next = parseUrl(new URL(hopResult.location, url).toString());
        headers = { ...headers };
        if (next.origin !== url.origin) {
          const sensitive = new Set(['authorization', ...(request.sensitiveHeaders ?? []).map((name) => name.toLowerCase())]);
          for (const name of Object.keys(headers)) if (sensitive.has(name.toLowerCase())) delete headers[name];
        }
        if (status === 303 || ((status === 301 || status === 302) && method === 'POST')) {
          method = method === 'HEAD' ? 'HEAD' : 'GET';
          body = undefined;
          for (const name of Object.keys(headers)) if (name.toLowerCase() === 'content-type') delete headers[name];
        }
        url = next;
        continue;
      }
      const received = hopResult.body as Buffer;
      const finalUrl = url;
      // The reply's headers object is built by node:http on first read: only for callers that read it.
      return {
        status,
        get headers() {
          return response.headers;
        },
        body: received,
        url: finalUrl.href,
        redirects,
      };
    }
  } finally {
    exchange.end();
  }
}

/** node:dns lookup of every address of a name, in the resolver's order. */
export const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) => dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))));

/** allowedAddresses with its errors as OutboundRequestError. */
async function judged(url: URL, policy: OutboundPolicy, resolve: Resolver): Promise<LookupAddress[]> {
  try {
    return await allowedAddresses(url, policy, resolve);
  } catch (error) {
    if (error instanceof OutboundAddressRefusedError) throw new OutboundRequestError('blocked_address', `Refused to call ${describe(url)}: ${error.message}.`, `refused: ${error.message}`);
    if (error instanceof OutboundDnsError) throw new OutboundRequestError('dns_error', error.message);
    throw error;
  }
}

/** A `lookup` that answers only `addresses` (the judged ones), whatever the name: the connection is pinned to them. */
function pinnedLookup(addresses: LookupAddress[]): LookupFunction {
  return ((_hostname: string, options: { all?: boolean; family?: number | string }, callback: (...args: unknown[]) => void) => {
    const wanted = options.family === 4 || options.family === 6 ? addresses.filter((entry) => entry.family === options.family) : addresses;
    const usable = wanted.length > 0 ? wanted : addresses;
    if (options.all) callback(null, usable);
    else callback(null, usable[0].address, usable[0].family);
  }) as unknown as LookupFunction;
}

/** What one hop gave: a redirect to follow (its `location`), or the reply with its whole body. */
interface HopResult {
  response: IncomingMessage;
  location?: string;
  body?: Buffer;
}

/** The first Content-Length of a reply, from its raw headers (node:http builds `headers` only when it is read). */
function declaredLength(rawHeaders: string[]): number {
  for (let index = 0; index < rawHeaders.length; index += 2) {
    const name = rawHeaders[index];
    if (name.length === 14 && name.toLowerCase() === 'content-length') return Number(rawHeaders[index + 1]);
  }
  return Number.NaN;
}

/**
 * Sends one hop, connecting only through `lookup` (pinned), and reads its reply as a stream up to the cap, in one
 * promise: a redirect (when `followable`) resolves with its location and is not read; a stop of the exchange destroys
 * the request and rejects with the exchange's error.
 * @throws OutboundReplyTooLargeError as soon as the cap is passed (or declared passed); network_error otherwise
 */
function exchangeHop(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: string | Buffer | undefined,
  lookup: LookupFunction,
  exchange: Exchange,
  request: GuardedRequest,
  followable: boolean,
): Promise<HopResult> {
  const https = url.protocol === 'https:';
  const agents = request.agents;
  const options: RequestOptions = {
    method,
    headers: body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) },
    lookup,
    agent: (https ? agents?.https : agents?.http) ?? false,
  };
  const limit = request.maxResponseBytes;
  return new Promise((resolve, reject) => {
    let replied: IncomingMessage | undefined;
    const failed = (error: unknown) =>
      reject(
        exchange.reason
          ? exchange.error()
          : replied
            ? new OutboundRequestError('network_error', `The reply from ${describe(url)} broke off: ${(error as Error).message}`, 'the reply broke off', error)
            : new OutboundRequestError('network_error', `Could not reach ${describe(url)}: ${(error as Error).message}`, `could not connect (${(error as { code?: string }).code ?? 'network error'})`, error),
      );
    const outgoing = (https ? httpsRequest : httpRequest)(url, options, (response) => {
      replied = response;
      const status = response.statusCode ?? 0;
      if (followable && REDIRECTS.has(status)) {
        const location = response.headers.location;
        if (location) {
          resolve({ response, location });
          return;
        }
      }
      const declared = declaredLength(response.rawHeaders);
      if (Number.isFinite(declared) && declared > limit) {
        // Reject before destroying: destroy() emits 'aborted' synchronously.
        reject(new OutboundReplyTooLargeError(limit, request.maxResponseBytesName, `The reply from ${describe(url)} declares ${declared} bytes`));
        response.destroy();
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > limit) {
          chunks.length = 0;
          reject(new OutboundReplyTooLargeError(limit, request.maxResponseBytesName, `The reply from ${describe(url)} is over the cap`));
          response.destroy();
          return;
        }
        chunks.push(chunk);
      });
      response.on('end', () => resolve({ response, body: chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size) }));
      response.on('error', failed);
      response.on('aborted', () => failed(new Error('aborted')));
    });
    outgoing.on('error', failed);
    exchange.whenStopped(() => {
      reject(exchange.error());
      outgoing.destroy();
      replied?.destroy();
    });
    outgoing.end(body);
  });
}

/** Parses an http(s) URL. @throws OutboundRequestError invalid_url */
function parseUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new OutboundRequestError('invalid_url', 'The URL is not valid.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new OutboundRequestError('invalid_url', `Only http and https URLs are called, not ${url.protocol}`);
  if (url.username || url.password) throw new OutboundRequestError('invalid_url', 'URLs with credentials are not called.');
  return url;
}

/** A URL for messages: origin and path, never the query (it may carry secrets). */
export function describe(url: URL): string {
  return `${url.origin}${url.pathname}`;
}

/** `work`, or the exchange's error as soon as it stops (the work itself is left to end on its own). */
function stoppable<T>(work: Promise<T>, exchange: Exchange): Promise<T> {
  if (exchange.reason) return Promise.reject(exchange.error());
  return new Promise((resolve, reject) => {
    exchange.whenStopped(() => reject(exchange.error()));
    work.then(
      (value) => {
        exchange.whenStopped(undefined);
        resolve(value);
      },
      (error: unknown) => {
        exchange.whenStopped(undefined);
        reject(error);
      },
    );
  });
}
