import { BadRequestException } from '@nestjs/common';
import type { Request } from 'express';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { GuessLimiter } from '../../../common/auth/guess-limiter';
import { sha256Hex } from '../../../common/crypto/secrets';
import type { OperatorSignInHandoff } from '../../../common/ports/operator-sign-in';

/** Cookie that binds a started sign-in to the browser that started it (login CSRF: a link to someone else's callback fails). */
export const SSO_STATE_COOKIE = 'atrium_sso_state';
/** The cookie's path: sent to the single sign-on routes only. */
export const SSO_COOKIE_PATH = '/api/auth/sso';

/** The handoff each verified callback request carried in its state (read by the callback, once passport is done). */
const handoffs = new WeakMap<Request, OperatorSignInHandoff>();

/**
 * The handoff a callback's verified state named (a sign-in another wing started through the operator sign-in port),
 * or undefined for a plain evaluation sign-in.
 */
export function ssoHandoff(request: Request): OperatorSignInHandoff | undefined {
  return handoffs.get(request);
}

/** A handoff as passport-oauth2 passes `options.state` to the store; anything else is no handoff. */
function asHandoff(value: unknown): OperatorSignInHandoff | undefined {
  const candidate = value as Partial<OperatorSignInHandoff> | undefined;
  if (typeof candidate?.purpose !== 'string' || typeof candidate.reference !== 'string') return undefined;
  if (candidate.purpose.length > 64 || candidate.reference.length > 200) throw new Error('An operator sign-in handoff is at most 64 + 200 characters.');
  return { purpose: candidate.purpose, reference: candidate.reference };
}

type StoreCallback = (error: Error | null, state?: string) => void;
type VerifyCallback = (error: Error | null, verifier?: string | false, state?: unknown) => void;

/** The value of one cookie of a `Cookie` header, or undefined. */
export function cookieValue(request: Request, name: string): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return rest.join('=');
  }
  return undefined;
}

/**
 * passport-oauth2's state store for PKCE (its `store`/`verify` protocol, 5- and 4-argument forms) kept in PostgreSQL
 * (`eval_sso_state`, issue 13 item 2), since the app has no server sessions and any instance may receive the callback:
 * - `store`: past AUTH_SIGN_IN_START_MAX starts of the client's address in the window, 429 (GuessLimitExceeded) and
 *   nothing stored; else a new random `state` (256 bits); its SHA-256 and the PKCE code verifier are stored for `ttlMs`; the state
 *   is also set as an HttpOnly, SameSite=Lax cookie on the single sign-on path, binding the sign-in to this browser;
 * - `verify`: the callback's `state` must equal the cookie and name a stored, unexpired row, which is deleted in the
 *   same statement (single use). Otherwise 400 (BadRequestException): forged, replayed, expired, or another browser's.
 * - a sign-in started for another wing (the operator sign-in port, `options.state` = {@link OperatorSignInHandoff})
 *   keeps its handoff in the row; the verified callback finds it with {@link ssoHandoff}.
 */
export class SsoStateStore {
  constructor(
    private readonly dataSource: DataSource,
    private readonly ttlMs: number,
    /** Whether the cookie carries `Secure` (the callback URL is https). */
    private readonly secureCookie: boolean,
    /** Counts every start per client address (AUTH_SIGN_IN_START_*): each stores a row before anyone is known. */
    private readonly limiter: Pick<GuessLimiter, 'countAttempt'>,
  ) {}

  store(request: Request, verifier: string, handoffState: unknown, _meta: unknown, callback: StoreCallback): void {
    const state = randomBytes(32).toString('base64url');
    const expiresAt = new Date(Date.now() + this.ttlMs);
    let handoff: OperatorSignInHandoff | undefined;
    try {
      handoff = asHandoff(handoffState);
    } catch (error) {
      return callback(error as Error);
    }
    this.limiter
      .countAttempt('sign-in-start', request.ip)
      .then(() => this.dataSource.query(`WITH swept AS (DELETE FROM eval_sso_state WHERE expires_at < now()) INSERT INTO eval_sso_state (state_hash, code_verifier, expires_at, handoff) VALUES ($1, $2, $3, $4)`, [
        sha256Hex(state),
        verifier,
        expiresAt,
        handoff ? JSON.stringify(handoff) : null,
      ]))
      .then(() => {
        request.res?.append('Set-Cookie', this.cookie(state, Math.ceil(this.ttlMs / 1000)));
        callback(null, state);
      }, (error: Error) => callback(error));
  }

  verify(request: Request, state: unknown, _meta: unknown, callback: VerifyCallback): void {
    const bound = cookieValue(request, SSO_STATE_COOKIE);
    // The binding cookie has done its work whatever the outcome.
    request.res?.append('Set-Cookie', this.cookie('', 0));
    if (typeof state !== 'string' || state.length === 0 || state.length > 128) return callback(new BadRequestException('The sign-in response has no valid state; start again at /api/auth/sso/login.'));
    if (!bound || !sameText(bound, state)) {
      return callback(new BadRequestException('The sign-in state does not belong to this browser (no or another sign-in cookie); start again at /api/auth/sso/login.'));
    }
    this.dataSource
      .query(`DELETE FROM eval_sso_state WHERE state_hash = $1 RETURNING code_verifier, handoff, expires_at > now() AS live`, [sha256Hex(state)])
      .then((result: unknown[]) => {
        // TypeORM answers a DELETE … RETURNING with [rows, affected count].
        const [row] = (Array.isArray(result[0]) ? result[0] : result) as { code_verifier: string; handoff: unknown; live: boolean }[];
        if (!row || !row.live) return callback(new BadRequestException('The sign-in state is unknown, already used or expired; start again at /api/auth/sso/login.'));
        const handoff = asHandoff(row.handoff);
        if (handoff) handoffs.set(request, handoff);
        callback(null, row.code_verifier, undefined);
      }, (error: Error) => callback(error));
  }

  private cookie(value: string, maxAgeS: number): string {
    return `${SSO_STATE_COOKIE}=${value}; Path=${SSO_COOKIE_PATH}; Max-Age=${maxAgeS}; HttpOnly; SameSite=Lax${this.secureCookie ? '; Secure' : ''}`;
  }
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
