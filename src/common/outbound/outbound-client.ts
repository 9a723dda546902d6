import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { OutboundPolicy, Resolver } from './address-policy';
import { AddressDecisionCache, guardedHttpRequest, type GuardedRequest, type GuardedResponse, OutboundRequestError, systemResolver } from './guarded-http';

/** One use's settings (from its wing's `*-outbound.config.ts`): policy plus limits. */
export interface OutboundUseSettings extends Omit<OutboundPolicy, 'protectedLocalPorts' | 'protectedEndpoints' | 'localAddresses'> {
  /** Byte cap of every reply of this use. */
  maxResponseBytes: number;
  /** The variable that sets it (named when a reply passes it). */
  maxResponseBytesName: string;
  /** Deadline of a whole exchange when the caller names none, ms. */
  defaultTimeoutMs: number;
  /** Redirects followed when the caller names no number. Default 3. */
  maxRedirects?: number;
}

/** What this server must never call: its own ports, its database (filled in by OutboundHttp at start-up). */
export interface ProtectedTargets {
  protectedLocalPorts: readonly number[];
  protectedEndpoints: readonly { host: string; port: number }[];
  localAddresses: readonly string[];
}

/** No protected targets (a client built without OutboundHttp, e.g. in unit tests): one object, so the policy stays the same. */
const NO_PROTECTED_TARGETS: ProtectedTargets = Object.freeze({ protectedLocalPorts: [], protectedEndpoints: [], localAddresses: [] });

/** A WHATWG `fetch` whose every call goes through the guard (for SDKs that take a `fetch`, like `openai`). */
export type GuardedFetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/**
 * The outbound HTTP client of one use (tool providers, evaluation targets, models, webhooks, the chat platform):
 * guardedHttpRequest under the use's policy, byte cap and time limit (issue 19 item 1). Holds one pair of keep-alive
 * agents, so a run's cases reuse sockets; a socket is only ever opened to an address this use's policy allowed.
 * Allowed-hop decisions are kept per host:port (AddressDecisionCache: an IP literal's while the policy holds, a name's
 * for `decisionTtlMs`), each with the addresses it was judged on, and requests that reuse one are pinned to those
 * addresses: a busy use does not judge the same host per request, and DNS rebinding cannot move a connection.
 */
export class OutboundClient {
  private readonly agents = { http: new HttpAgent({ keepAlive: true, maxSockets: 256 }), https: new HttpsAgent({ keepAlive: true, maxSockets: 256 }) };
  private readonly decisions: AddressDecisionCache;
  /** The policy built for the protected targets last seen (rebuilt when that object changes). */
  private cachedPolicy?: { targets: ProtectedTargets; policy: OutboundPolicy };

  /**
   * @param settings the use's policy and limits
   * @param protectedTargets read on every call (ports become known once the server listens)
   *   (OutboundHttp returns the same object until they change, so kept decisions stay valid until then)
   * @param resolve DNS (tests inject a fake)
   * @param decisionTtlMs how long a host name's judged addresses are reused before it is resolved again, ms
   *   (default 1000; 0: resolved and judged on every request)
   */
  constructor(
    readonly settings: OutboundUseSettings,
    private readonly protectedTargets: () => ProtectedTargets = () => NO_PROTECTED_TARGETS,
    private readonly resolve: Resolver = systemResolver,
    decisionTtlMs = 1_000,
  ) {
    this.decisions = new AddressDecisionCache(decisionTtlMs);
  }

  /** The full policy right now (the use's switch plus this server's protected targets); the same object while they hold. */
  policy(): OutboundPolicy {
    const targets = this.protectedTargets();
    if (this.cachedPolicy?.targets !== targets) this.cachedPolicy = { targets, policy: { ...this.settings, ...targets } };
    return this.cachedPolicy.policy;
  }

  /**
   * Sends one request; limits default to the use's (`maxResponseBytes` may only be lowered by the caller).
   * @throws OutboundRequestError (OutboundReplyTooLargeError past the cap; codes blocked_address, timeout …)
   */
  request(request: Omit<GuardedRequest, 'timeoutMs' | 'maxResponseBytes' | 'maxRedirects'> & Partial<Pick<GuardedRequest, 'timeoutMs' | 'maxResponseBytes' | 'maxRedirects'>>): Promise<GuardedResponse> {
    const cap = Math.min(request.maxResponseBytes ?? this.settings.maxResponseBytes, this.settings.maxResponseBytes);
    return guardedHttpRequest(
      {
        url: request.url,
        method: request.method,
        headers: request.headers,
        body: request.body,
        timeoutMs: request.timeoutMs ?? this.settings.defaultTimeoutMs,
        maxResponseBytes: cap,
        maxResponseBytesName: request.maxResponseBytesName ?? this.settings.maxResponseBytesName,
        maxRedirects: request.maxRedirects ?? this.settings.maxRedirects ?? 3,
        returnRedirects: request.returnRedirects,
        sensitiveHeaders: request.sensitiveHeaders,
        signal: request.signal,
        agents: this.agents,
      },
      this.policy(),
      this.resolve,
      this.decisions,
    );
  }

  /**
   * A `fetch` over {@link request}: the request body is read whole (it is ours), the reply is read under the cap
   * before the Response is returned, so SDK code never sees more than the cap. `redirect: 'manual'` returns 3xx
   * replies as they are; `redirect: 'error'` refuses them. `init.signal` cancels the exchange.
   * @throws OutboundRequestError from the returned function (SDKs wrap it; see outboundCause)
   */
  fetch(options: { timeoutMs?: number } = {}): GuardedFetch {
    return async (input, init) => {
      const incoming = new Request(input, init);
      const body = incoming.body ? Buffer.from(await incoming.arrayBuffer()) : undefined;
      const headers: Record<string, string> = {};
      incoming.headers.forEach((value, name) => {
        headers[name] = value;
      });
      const redirect = init?.redirect ?? incoming.redirect;
      const reply = await this.request({
        url: incoming.url,
        method: incoming.method,
        headers,
        body,
        signal: init?.signal ?? undefined,
        timeoutMs: options.timeoutMs,
        ...(redirect === 'manual' ? { maxRedirects: 0, returnRedirects: true } : redirect === 'error' ? { maxRedirects: 0 } : {}),
      });
      const replyHeaders = new Headers();
      for (const [name, value] of Object.entries(reply.headers)) {
        if (value === undefined) continue;
        for (const item of Array.isArray(value) ? value : [value]) replyHeaders.append(name, item);
      }
      const empty = reply.status === 204 || reply.status === 304 || incoming.method === 'HEAD';
      const response = new Response(empty ? null : new Uint8Array(reply.body), { status: reply.status < 200 ? 502 : reply.status, headers: replyHeaders });
      Object.defineProperty(response, 'url', { value: reply.url });
      return response;
    };
  }

  /** Closes idle keep-alive sockets (shutdown). */
  close(): void {
    this.agents.http.destroy();
    this.agents.https.destroy();
  }
}

/**
 * The OutboundRequestError somewhere on an error's `cause` chain (the `openai` SDK wraps what fetch threw in an
 * APIConnectionError), or undefined.
 */
export function outboundCause(error: unknown): OutboundRequestError | undefined {
  for (let current: unknown = error, depth = 0; current && depth < 5; depth++) {
    if (current instanceof OutboundRequestError) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
