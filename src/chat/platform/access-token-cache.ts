/**
 * The per-corp access token cache of the HTTP adapter (issue 5: "access token fetched and cached until expiry and
 * refreshed on expiry errors"). Tokens live in this process only; a restart or another instance fetches its own
 * (the platform keeps earlier tokens valid until they expire, so instances do not invalidate each other).
 */

/** A token as the platform issued it. */
export interface IssuedToken {
  token: string;
  /** Lifetime the platform announced (`expires_in`), in seconds. */
  expiresInSeconds: number;
}

interface Entry {
  token: string;
  /** Epoch ms after which the token is no longer handed out. */
  refreshAtMs: number;
}

/**
 * When a token issued at `issuedAtMs` stops being used, in epoch ms: `marginMs` before the platform's expiry, so a
 * call never starts with a token about to lapse. When the margin would eat more than half of the lifetime (tokens
 * with a short life), the token is used for half of its lifetime instead. A lifetime of 0 or less gives `issuedAtMs`
 * (never reused).
 */
export function tokenRefreshAtMs(issuedAtMs: number, expiresInSeconds: number, marginMs: number): number {
  const lifetimeMs = Math.max(0, expiresInSeconds) * 1000;
  return issuedAtMs + Math.max(lifetimeMs - Math.max(0, marginMs), lifetimeMs / 2);
}

/**
 * Tokens by key (tenant + platform corp id + a hash of the secret, so a changed secret never reuses a token of the
 * old one). `getOrFetch` is single-flight: concurrent callers for one key share one fetch; a failed fetch is not
 * cached.
 */
export class AccessTokenCache {
  private readonly entries = new Map<string, Entry>();
  private readonly inFlight = new Map<string, Promise<string>>();

  /**
   * @param options.refreshMarginMs stop using a token this long before its expiry, in ms
   * @param options.now clock in epoch ms (injectable for tests)
   */
  constructor(private readonly options: { refreshMarginMs: number; now?: () => number }) {}

  private now(): number {
    return this.options.now ? this.options.now() : Date.now();
  }

  /** The cached token for `key`, or undefined when there is none or it is due for refresh. */
  get(key: string): string | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (this.now() >= entry.refreshAtMs) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.token;
  }

  /** Stores a freshly issued token (and drops expired entries of other keys). */
  store(key: string, issued: IssuedToken): void {
    const now = this.now();
    for (const [other, entry] of this.entries) if (now >= entry.refreshAtMs) this.entries.delete(other);
    this.entries.set(key, { token: issued.token, refreshAtMs: tokenRefreshAtMs(now, issued.expiresInSeconds, this.options.refreshMarginMs) });
  }

  /**
   * Forgets the token of `key` after the platform called it invalid or expired. With `token`, only when that is
   * still the cached one (a concurrent call may already have stored a new token, which must survive).
   */
  invalidate(key: string, token?: string): void {
    const entry = this.entries.get(key);
    if (entry && (token === undefined || entry.token === token)) this.entries.delete(key);
  }

  /**
   * The cached token, else the result of `fetch` (stored). Concurrent calls for the same key wait for the same fetch.
   * @throws whatever `fetch` throws (nothing is cached then)
   */
  async getOrFetch(key: string, fetch: () => Promise<IssuedToken>): Promise<string> {
    const cached = this.get(key);
    if (cached !== undefined) return cached;
    const pending = this.inFlight.get(key);
    if (pending) return pending;
    const promise = (async () => {
      try {
        const issued = await fetch();
        this.store(key, issued);
        return issued.token;
      } finally {
        this.inFlight.delete(key);
      }
    })();
    this.inFlight.set(key, promise);
    return promise;
  }

  /** Number of cached tokens (for tests and diagnostics). */
  get size(): number {
    return this.entries.size;
  }
}
