import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';

/**
 * An HTTP client for calls to user-configured URLs (tool API providers) that never connects to an address the
 * caller's guard refuses (issue 6: tool calls "never to loopback or private addresses unless allowed by
 * configuration"). Per hop, before any connection:
 * 1. only `http:` and `https:` URLs;
 * 2. a literal IP host is checked; a name is resolved (all A and AAAA answers) and EVERY answer is checked — one
 *    refused answer refuses the call;
 * 3. the connection is pinned to the checked answers (a custom `lookup`), so a second DNS answer (rebinding)
 *    cannot redirect it;
 * 4. redirects (301, 302, 303, 307, 308) are followed by hand, up to `maxRedirects`, each target checked the same
 *    way; credentials (`sensitiveHeaders`) are dropped when the origin changes; 303 (and 301/302 after a POST)
 *    become GET without a body.
 * One deadline (`timeoutMs`) covers DNS, connections, redirects and reading the reply; the reply is read up to
 * `maxResponseBytes`.
 */

/** Why an outbound request failed. */
export type OutboundErrorCode = 'invalid_url' | 'blocked_address' | 'dns_error' | 'timeout' | 'too_many_redirects' | 'response_too_large' | 'network_error';

/** A failed outbound request; `message` is readable and holds no secret (URLs are shown without their query). */
export class OutboundRequestError extends Error {
  constructor(
    readonly code: OutboundErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** Resolves a host name to all its addresses (node:dns `lookup` with `all: true` by default). */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

/** What to send. */
export interface GuardedRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
  /** Deadline of the whole exchange, ms. */
  timeoutMs: number;
  maxResponseBytes: number;
  maxRedirects: number;
  /** Header names (lower case) dropped when a redirect leaves the origin (Authorization is always dropped). */
  sensitiveHeaders?: string[];
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
 * Sends the request under the guard (see the module comment).
 * @param guard returns why an address is refused, or null when it may be used
 * @param resolve DNS resolution (default: node:dns lookup, all answers)
 * @throws OutboundRequestError
 */
export async function guardedHttpRequest(request: GuardedRequest, guard: (address: string) => string | null, resolve: Resolver = systemResolver): Promise<GuardedResponse> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), request.timeoutMs);
  const timeout = () => new OutboundRequestError('timeout', `No complete reply within ${request.timeoutMs} ms.`);
  try {
    let url = parseUrl(request.url);
    let method = request.method.toUpperCase();
    let body = request.body;
    const headers = { ...request.headers };
    const sensitive = new Set(['authorization', ...(request.sensitiveHeaders ?? []).map((name) => name.toLowerCase())]);
    for (let redirects = 0; ; redirects += 1) {
      const addresses = await withDeadline(checkedAddresses(url, guard, resolve), controller.signal, timeout);
      const response = await send(url, method, headers, body, addresses, controller.signal).catch((error: unknown) => {
        throw controller.signal.aborted ? timeout() : new OutboundRequestError('network_error', `Could not reach ${describe(url)}: ${(error as Error).message}`);
      });
      const location = response.headers.location;
      if ([301, 302, 303, 307, 308].includes(response.statusCode ?? 0) && location) {
        response.resume();
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
      const received = await readBody(response, request.maxResponseBytes, controller.signal).catch((error: unknown) => {
        if (error instanceof OutboundRequestError) throw error;
        throw controller.signal.aborted ? timeout() : new OutboundRequestError('network_error', `The reply from ${describe(url)} broke off: ${(error as Error).message}`);
      });
      return { status: response.statusCode ?? 0, headers: response.headers, body: received, url: url.toString(), redirects };
    }
  } finally {
    clearTimeout(timer);
  }
}

/** node:dns lookup of every address of a name, in the resolver's order. */
export const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) => dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))));

/** The addresses the request may connect to, every one allowed by the guard. @throws OutboundRequestError */
async function checkedAddresses(url: URL, guard: (address: string) => string | null, resolve: Resolver): Promise<LookupAddress[]> {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const family = isIP(host);
  let addresses: LookupAddress[];
  if (family) {
    addresses = [{ address: host, family }];
  } else {
    try {
      addresses = await resolve(host);
    } catch (error) {
      throw new OutboundRequestError('dns_error', `Cannot resolve ${host}: ${(error as { code?: string }).code ?? (error as Error).message}`);
    }
    if (addresses.length === 0) throw new OutboundRequestError('dns_error', `${host} has no address.`);
  }
  for (const { address } of addresses) {
    const reason = guard(address);
    if (reason) throw new OutboundRequestError('blocked_address', `Refused to call ${describe(url)}: ${reason}.`);
  }
  return addresses;
}

/** Sends one hop, connecting only to `addresses`; resolves with the response head. */
function send(url: URL, method: string, headers: Record<string, string>, body: string | undefined, addresses: LookupAddress[], signal: AbortSignal): Promise<IncomingMessage> {
  const pinned = ((_hostname: string, options: { all?: boolean; family?: number | string }, callback: (...args: unknown[]) => void) => {
    const wanted = options.family === 4 || options.family === 6 ? addresses.filter((entry) => entry.family === options.family) : addresses;
    const usable = wanted.length > 0 ? wanted : addresses;
    if (options.all) callback(null, usable);
    else callback(null, usable[0].address, usable[0].family);
  }) as unknown as LookupFunction;
  const options: RequestOptions = {
    method,
    headers: body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) },
    lookup: pinned,
    agent: false,
    signal,
  };
  return new Promise((resolve, reject) => {
    const outgoing = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, options, resolve);
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/** Reads a body up to `limit` bytes. @throws OutboundRequestError response_too_large */
function readBody(response: IncomingMessage, limit: number, signal: AbortSignal): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const declared = Number(response.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) {
      // Reject before destroying: destroy() emits 'aborted' synchronously.
      reject(new OutboundRequestError('response_too_large', `The reply is ${declared} bytes; at most ${limit} are read.`));
      response.destroy();
      return;
    }
    response.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        reject(new OutboundRequestError('response_too_large', `The reply is over ${limit} bytes.`));
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
function describe(url: URL): string {
  return `${url.origin}${url.pathname}`;
}

function withDeadline<T>(work: Promise<T>, signal: AbortSignal, onTimeout: () => Error): Promise<T> {
  if (signal.aborted) return Promise.reject(onTimeout());
  return new Promise((resolve, reject) => {
    const abort = () => reject(onTimeout());
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
