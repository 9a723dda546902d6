import { getDataSourceToken } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { startTestApp, TEST_OWNER_TOKEN, TEST_REGISTRATION_KEY, TestApp } from '../support/test-app';

const API_KEY = 'eval-api-key-guess-0123456789abcdef';
const PASSWORD = 'admin-password-guess-123';
const LIMIT = 7;
const PASSWORD_LIMIT = 5;
/** The deploy owner token's window (AUTH_GUESS_OWNER_TOKEN_WINDOW_MS), short so that a test can see one end. */
const OWNER_TOKEN_WINDOW_MS = 10_000;
const PARALLEL = 200;

/** One HTTP exchange as the test sees it. */
interface Answer {
  status: number;
  retryAfter: string | null;
  contentType: string | null;
}

/**
 * Issue 12 item 5 + acceptance 5: for every guessable credential, 200 parallel wrong attempts from one address check
 * no more than the limit (the rest get 429 with Retry-After, unchecked), the count lives in PostgreSQL as one row per
 * window (the aggregate audit), and the right credential from another address still works. The client address comes
 * from X-Forwarded-For, which the app trusts from loopback only (`trust proxy: loopback`), as behind a reverse proxy.
 */
describe('guessing limits (issue 12 item 5, acceptance 5)', () => {
  let testApp: TestApp;
  let db: DataSource;
  let addressCounter = 0;
  const freshAddress = () => `198.51.100.${++addressCounter}`;

  const call = async (path: string, init: { method?: string; headers?: Record<string, string>; body?: unknown; from: string }): Promise<Answer> => {
    const response = await fetch(`${testApp.baseUrl}${path}`, {
      method: init.method ?? 'GET',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': init.from, ...init.headers },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    await response.arrayBuffer();
    return { status: response.status, retryAfter: response.headers.get('retry-after'), contentType: response.headers.get('content-type') };
  };

  const kinds = [
    {
      kind: 'deploy-registration-key',
      limit: LIMIT,
      wrong: (from: string) => call('/api/auth/register', { method: 'POST', body: { registrationKey: 'wrong-registration-key-000000000' }, from }),
      right: (from: string) => call('/api/auth/register', { method: 'POST', body: { registrationKey: TEST_REGISTRATION_KEY, contactId: `c-guess-${Math.random().toString(36).slice(2, 8)}` }, from }),
      okStatus: 201,
    },
    {
      kind: 'deploy-owner-token',
      limit: LIMIT,
      wrong: (from: string) => call('/api/admin/tokens', { headers: { authorization: 'Bearer wrong-owner-token-0123456789abcdefghij' }, from }),
      right: (from: string) => call('/api/admin/tokens', { headers: { authorization: `Bearer ${TEST_OWNER_TOKEN}` }, from }),
      okStatus: 200,
    },
    {
      kind: 'eval-password',
      limit: PASSWORD_LIMIT,
      wrong: (from: string) => call('/api/auth/sign-in', { method: 'POST', body: { password: 'not-the-password' }, from }),
      right: (from: string) => call('/api/auth/sign-in', { method: 'POST', body: { password: PASSWORD }, from }),
      okStatus: 200,
    },
    {
      kind: 'eval-api-key',
      limit: LIMIT,
      wrong: (from: string) => call('/api/model-configs', { headers: { 'x-api-key': 'wrong-api-key-0123456789abcdef' }, from }),
      right: (from: string) => call('/api/model-configs', { headers: { 'x-api-key': API_KEY }, from }),
      okStatus: 200,
    },
  ] as const;

  beforeAll(async () => {
    testApp = await startTestApp({
      EVAL_API_KEYS: API_KEY,
      EVAL_ADMIN_PASSWORD: PASSWORD,
      EVAL_SIGN_IN_MAX_FAILURES: String(PASSWORD_LIMIT),
      AUTH_GUESS_MAX_FAILURES: String(LIMIT),
      // A short window for one kind, so the test can see a window end; 10 s, so that a 200-request burst on a loaded
      // machine (attempts may wait up to 5 s for checks in flight) still falls in at most two windows.
      AUTH_GUESS_OWNER_TOKEN_WINDOW_MS: String(OWNER_TOKEN_WINDOW_MS),
    });
    db = testApp.app.get<DataSource>(getDataSourceToken());
  });
  afterAll(() => testApp?.close());

  describe.each(kinds)('$kind', ({ kind, limit, wrong, right, okStatus }) => {
    it(`checks at most the limit of ${PARALLEL} parallel wrong attempts; the rest get 429 with Retry-After, unchecked`, async () => {
      const attacker = freshAddress();
      let answers = await Promise.all(Array.from({ length: PARALLEL }, () => wrong(attacker)));
      if (kind === 'deploy-owner-token' && answers.filter((answer) => answer.status === 401).length > limit) {
        // The 10 s window may have ended during the burst: a new window may grant up to `limit` more checks.
        // Retried from one new address (not one per attempt, which no limit could ever hold to `2 * limit`).
        const retryFrom = freshAddress();
        answers = await Promise.all(Array.from({ length: PARALLEL }, () => wrong(retryFrom)));
      }
      const checked = answers.filter((answer) => answer.status === 401);
      const refused = answers.filter((answer) => answer.status === 429);
      expect(checked.length + refused.length).toBe(PARALLEL);
      if (kind !== 'deploy-owner-token') {
        expect(checked).toHaveLength(limit);
        expect(refused).toHaveLength(PARALLEL - limit);
      } else {
        expect(checked.length).toBeLessThanOrEqual(2 * limit);
        expect(refused.length).toBeGreaterThanOrEqual(PARALLEL - 2 * limit);
      }
      for (const answer of refused) {
        expect(answer.contentType).toMatch(/^application\/problem\+json/);
        expect(Number(answer.retryAfter)).toBeGreaterThanOrEqual(1);
        expect(Number(answer.retryAfter)).toBeLessThanOrEqual(kind === 'deploy-owner-token' ? 10 : 15 * 60);
      }
    });

    it('counts one aggregate row per window, kind and address, however many were refused', async () => {
      const attacker = freshAddress();
      await Promise.all(Array.from({ length: 30 }, () => wrong(attacker)));
      const rows: { failures: number; refused: number }[] = await db.query(`SELECT failures, refused FROM auth_guess_window WHERE kind = $1 AND client_key = $2`, [kind, attacker]);
      const total = rows.reduce((sum, row) => sum + row.failures + row.refused, 0);
      expect(total).toBe(30);
      expect(rows.length).toBeLessThanOrEqual(2); // two only if the owner token's 10 s window ended mid-burst
    });

    it('keeps refusing the right credential from the limited address, and accepts it from another address', async () => {
      const attacker = freshAddress();
      for (let attempt = 0; attempt < limit; attempt++) await wrong(attacker);
      if (kind !== 'deploy-owner-token') expect((await right(attacker)).status).toBe(429);
      expect((await right(freshAddress())).status).toBe(okStatus);
    });

    it('does not count successes: many right attempts from one address all pass', async () => {
      const user = freshAddress();
      const answers = await Promise.all(Array.from({ length: limit * 3 }, () => right(user)));
      expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => okStatus));
    });
  });

  it('lets a client check again once its window has ended (Retry-After is honest)', async () => {
    const attacker = freshAddress();
    const wrong = kinds[1].wrong;
    // Windows are aligned to the clock (windowStartOf): attempts that straddle a boundary fall in two windows and none
    // is refused. Start with at least half a window ahead (this process and the app share the machine's clock).
    const left = OWNER_TOKEN_WINDOW_MS - (Date.now() % OWNER_TOKEN_WINDOW_MS);
    if (left < OWNER_TOKEN_WINDOW_MS / 2) await new Promise((resolve) => setTimeout(resolve, left + 50));
    let refused: Answer | undefined;
    for (let attempt = 0; attempt < LIMIT + 1 && !refused; attempt++) {
      const answer = await wrong(attacker);
      if (answer.status === 429) refused = answer;
    }
    expect(refused).toBeDefined();
    await new Promise((resolve) => setTimeout(resolve, Number(refused!.retryAfter) * 1000 + 50));
    expect((await wrong(attacker)).status).toBe(401);
  });

  it('audits refused deploy guesses in aggregate: one audit row per window, not one per guess', async () => {
    const attacker = freshAddress();
    await Promise.all(Array.from({ length: 60 }, () => kinds[0].wrong(attacker)));
    const rows: { status: number; count: string }[] = await db.query(
      `SELECT status, count(*) AS count FROM deploy_audit_entry WHERE client_address = $1 GROUP BY status ORDER BY status`,
      [attacker],
    );
    expect(rows.map((row) => [row.status, Number(row.count)])).toEqual([
      [401, LIMIT],
      [429, 1],
    ]);
  });

  it('counts IPv6 clients per /64, so rotating addresses inside one network does not buy more guesses', async () => {
    const password = kinds[2];
    const answers: number[] = [];
    for (let host = 1; host <= PASSWORD_LIMIT + 3; host++) answers.push((await password.wrong(`2001:db8:77:1::${host.toString(16)}`)).status);
    expect(answers).toEqual([...Array(PASSWORD_LIMIT).fill(401), 429, 429, 429]);
    // Another /64 is another client.
    expect((await password.right('2001:db8:77:2::1')).status).toBe(200);
  });

  it('applies the owner-token limit to bearer credentials on agent routes too (the owner token is not guessable there either)', async () => {
    const attacker = freshAddress();
    const answers = await Promise.all(
      Array.from({ length: 40 }, () => call('/api/deployments', { headers: { authorization: 'Bearer guessed-owner-token-0123456789abcdef' }, from: attacker })),
    );
    expect(answers.filter((answer) => answer.status === 401).length).toBeLessThanOrEqual(2 * LIMIT);
    expect(answers.filter((answer) => answer.status === 429).length).toBeGreaterThanOrEqual(40 - 2 * LIMIT);
  });
});
