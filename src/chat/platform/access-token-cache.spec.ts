import { AccessTokenCache, tokenRefreshAtMs } from './access-token-cache';

describe('tokenRefreshAtMs', () => {
  it('stops using a token the margin before the platform expiry', () => {
    expect(tokenRefreshAtMs(1_000, 7200, 300_000)).toBe(1_000 + 7_200_000 - 300_000);
  });

  it('uses a short-lived token for half its lifetime when the margin would eat more than that', () => {
    expect(tokenRefreshAtMs(0, 2, 300_000)).toBe(1_000);
    expect(tokenRefreshAtMs(0, 10, 6_000)).toBe(5_000);
    expect(tokenRefreshAtMs(0, 10, 4_000)).toBe(6_000);
  });

  it('never reuses a token with no lifetime and ignores a negative margin', () => {
    expect(tokenRefreshAtMs(500, 0, 0)).toBe(500);
    expect(tokenRefreshAtMs(500, -5, 0)).toBe(500);
    expect(tokenRefreshAtMs(0, 10, -1_000)).toBe(10_000);
  });
});

describe('AccessTokenCache', () => {
  let now: number;
  const cache = () => new AccessTokenCache({ refreshMarginMs: 60_000, now: () => now });
  beforeEach(() => {
    now = 1_000_000;
  });

  it('serves a stored token until its refresh time, then forgets it', () => {
    const tokens = cache();
    tokens.store('corp', { token: 'T1', expiresInSeconds: 7200 });
    now += 7_200_000 - 60_000 - 1;
    expect(tokens.get('corp')).toBe('T1');
    now += 1;
    expect(tokens.get('corp')).toBeUndefined();
    expect(tokens.size).toBe(0);
  });

  it('keeps keys apart', () => {
    const tokens = cache();
    tokens.store('a', { token: 'TA', expiresInSeconds: 7200 });
    expect(tokens.get('b')).toBeUndefined();
    expect(tokens.get('a')).toBe('TA');
  });

  it('invalidates only the token the platform refused, not one a concurrent call already replaced it with', () => {
    const tokens = cache();
    tokens.store('corp', { token: 'NEW', expiresInSeconds: 7200 });
    tokens.invalidate('corp', 'OLD');
    expect(tokens.get('corp')).toBe('NEW');
    tokens.invalidate('corp', 'NEW');
    expect(tokens.get('corp')).toBeUndefined();
    tokens.store('corp', { token: 'X', expiresInSeconds: 7200 });
    tokens.invalidate('corp');
    expect(tokens.get('corp')).toBeUndefined();
  });

  it('fetches once for concurrent callers and caches the result', async () => {
    const tokens = cache();
    let fetches = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const fetch = async () => {
      fetches++;
      await gate;
      return { token: `T${fetches}`, expiresInSeconds: 7200 };
    };
    const waiting = Promise.all([tokens.getOrFetch('corp', fetch), tokens.getOrFetch('corp', fetch), tokens.getOrFetch('corp', fetch)]);
    release();
    expect(await waiting).toEqual(['T1', 'T1', 'T1']);
    expect(await tokens.getOrFetch('corp', fetch)).toBe('T1');
    expect(fetches).toBe(1);
  });

  it('does not cache a failed fetch: the next call fetches again', async () => {
    const tokens = cache();
    await expect(tokens.getOrFetch('corp', async () => Promise.reject(new Error('platform down')))).rejects.toThrow('platform down');
    expect(await tokens.getOrFetch('corp', async () => ({ token: 'T2', expiresInSeconds: 7200 }))).toBe('T2');
  });

  it('fetches a new token once the cached one is due', async () => {
    const tokens = cache();
    let n = 0;
    const fetch = async () => ({ token: `T${++n}`, expiresInSeconds: 120 });
    expect(await tokens.getOrFetch('corp', fetch)).toBe('T1');
    now += 59_999;
    expect(await tokens.getOrFetch('corp', fetch)).toBe('T1');
    now += 1;
    expect(await tokens.getOrFetch('corp', fetch)).toBe('T2');
  });

  it('drops expired entries of other keys when storing', () => {
    const tokens = cache();
    tokens.store('old', { token: 'O', expiresInSeconds: 1 });
    now += 1_000;
    tokens.store('new', { token: 'N', expiresInSeconds: 7200 });
    expect(tokens.size).toBe(1);
  });
});
