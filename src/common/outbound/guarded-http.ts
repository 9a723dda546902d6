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
 * Sends the request under the policy (see the module comment).
 * @param resolve DNS resolution (default: node:dns lookup, all answers)
 * @throws OutboundRequestError (OutboundReplyTooLargeError past the cap)
 */
export async function guardedHttpRequest(request: GuardedRequest, policy: OutboundPolicy, resolve: Resolver = systemResolver): Promise<GuardedResponse> {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, request.timeoutMs);
  const onCallerAbort = () => controller.abort();
  if (request.signal?.aborted) controller.abort();
  request.signal?.addEventListener('abort', onCallerAbort, { once: true });
  const stopped = () =>
    timedOut || !request.signal?.aborted
      ? new OutboundRequestError('timeout', `No complete reply within ${request.timeoutMs} ms.`)
      : new OutboundRequestError('aborted', 'The request was cancelled.');
  try {
    let url = parseUrl(request.url);
    let method = request.method.toUpperCase();
    let body = request.body;
    const headers = { ...request.headers };
    const sensitive = new Set(['authorization', ...(request.sensitiveHeaders ?? []).map((name) => name.toLowerCase())]);
    for (let redirects = 0; ; redirects += 1) {
      const addresses = await withSignal(judged(url, policy, resolve), controller.signal, stopped);
      const response = await send(url, method, headers, body, addresses, controller.signal, request.agents).catch((error: unknown) => {
        throw controller.signal.aborted ? stopped() : new OutboundRequestError('network_error', `Could not reach ${describe(url)}: ${(error as Error).message}`, `could not connect (${(error as { code?: string }).code ?? 'network error'})`, error);
      });
      const location = response.headers.location;
      if ([301, 302, 303, 307, 308].includes(response.statusCode ?? 0) && location && !(request.returnRedirects && redirects >= request.maxRedirects)) {
        response.destroy();
        if (redirects >= request.maxRedirects) throw new OutboundRequestError('too_many_redirects', `More than ${request.maxRedirects} redirects (last to ${describe(url)}).`);
        const next = parseUrl(new URL(location, url).toString());
        if (next.origin !== url.origin) for (const name of Object.keys(headers)) if (sensitive.has(name.toLowerCase())) delete headers[name];
        if (response.statusCode === 303 || ((response.statusCode === 301 || response.statusCode === 302) && method === 'POST')) {
          method = method === 'HEAD' ? 'HEAD' : 'GET';
          body = undefined;
          for (const name of Object.keys(headers)) if (name.toLowerCase() === 'content-type') delete headers[name];
        }
        url = next;
        continue;
      }
      const received = await readBody(response, url, request, controller.signal).catch((error: unknown) => {
        if (error instanceof OutboundRequestError) throw error;
        throw controller.signal.aborted ? stopped() : new OutboundRequestError('network_error', `The reply from ${describe(url)} broke off: ${(error as Error).message}`, 'the reply broke off', error);
      });
      return { status: response.statusCode ?? 0, headers: response.headers, body: received, url: url.toString(), redirects };
    }
  } finally {
    clearTimeout(timer);
    request.signal?.removeEventListener('abort', onCallerAbort);
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

/** Sends one hop, connecting only to `addresses`; resolves with the response head. */
function send(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: string | Buffer | undefined,
  addresses: LookupAddress[],
  signal: AbortSignal,
  agents: GuardedRequest['agents'],
): Promise<IncomingMessage> {
  const pinned = ((_hostname: string, options: { all?: boolean; family?: number | string }, callback: (...args: unknown[]) => void) => {
    const wanted = options.family === 4 || options.family === 6 ? addresses.filter((entry) => entry.family === options.family) : addresses;
    const usable = wanted.length > 0 ? wanted : addresses;
    if (options.all) callback(null, usable);
    else callback(null, usable[0].address, usable[0].family);
  }) as unknown as LookupFunction;
  const https = url.protocol === 'https:';
  const options: RequestOptions = {
    method,
    headers: body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) },
    lookup: pinned,
    agent: (https ? agents?.https : agents?.http) ?? false,
    signal,
  };
  return new Promise((resolve, reject) => {
    const outgoing = (https ? httpsRequest : httpRequest)(url, options, resolve);
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/** Reads a body as a stream up to the cap. @throws OutboundReplyTooLargeError as soon as it is passed */
function readBody(response: IncomingMessage, url: URL, request: GuardedRequest, signal: AbortSignal): Promise<Buffer> {
  const limit = request.maxResponseBytes;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const declared = Number(response.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) {
      // Reject before destroying: destroy() emits 'aborted' synchronously.
      reject(new OutboundReplyTooLargeError(limit, request.maxResponseBytesName, `The reply from ${describe(url)} declares ${declared} bytes`));
      response.destroy();
      return;
    }
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
    response.on('end', () => resolve(Buffer.concat(chunks)));
    response.on('error', reject);
    response.on('aborted', () => reject(new Error('aborted')));
    signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
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

function withSignal<T>(work: Promise<T>, signal: AbortSignal, onAbort: () => Error): Promise<T> {
  if (signal.aborted) return Promise.reject(onAbort());
  return new Promise((resolve, reject) => {
    const abort = () => reject(onAbort());
    signal.addEventListener('abort', abort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', abort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', abort);
        reject(error);
      },
    );
  });
}
