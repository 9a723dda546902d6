import { classifyPlatformFailure, ERRCODE_RULES, errcodeRule, TOKEN_EXPIRED_ERRCODES } from './platform-errcodes';

describe('platform errcode mapping', () => {
  it('maps input the platform rejected to 400', () => {
    for (const errcode of [40003, 60111, 40096, 84061, 40068, 40058, 40007, 44004, 93000]) {
      expect(classifyPlatformFailure({ kind: 'errcode', errcode })).toEqual({ status: 400, retryable: false });
    }
  });

  it('maps a duplicate tag name to 409 and an oversized attachment to 413', () => {
    expect(classifyPlatformFailure({ kind: 'errcode', errcode: 40071 }).status).toBe(409);
    expect(classifyPlatformFailure({ kind: 'errcode', errcode: 45001 }).status).toBe(413);
  });

  it('maps a corp without a secret to 409: the client sets it (issue 22)', () => {
    expect(classifyPlatformFailure({ kind: 'errcode', errcode: 41004 })).toEqual({ status: 409, retryable: false });
  });

  it('maps credential and permission problems to a 502 that is not retried', () => {
    for (const errcode of [40001, 40013, 40014, 42001, 48002, 60011, 60020]) {
      expect(classifyPlatformFailure({ kind: 'errcode', errcode })).toEqual({ status: 502, retryable: false });
    }
  });

  it('maps a busy platform and rate limits to a retryable 502', () => {
    expect(classifyPlatformFailure({ kind: 'errcode', errcode: -1 })).toEqual({ status: 502, retryable: true });
    expect(classifyPlatformFailure({ kind: 'errcode', errcode: 45009 })).toEqual({ status: 502, retryable: true });
  });

  it('maps an unknown errcode to a 502 with a generic hint', () => {
    expect(classifyPlatformFailure({ kind: 'errcode', errcode: 123456 })).toEqual({ status: 502, retryable: false });
    expect(errcodeRule(123456).hint).toMatch(/refused/);
  });

  it('maps transport failures: 5xx and network 502 retryable, timeout 504, other statuses and bad replies 502 final', () => {
    expect(classifyPlatformFailure({ kind: 'http_status', httpStatus: 503 })).toEqual({ status: 502, retryable: true });
    expect(classifyPlatformFailure({ kind: 'http_status', httpStatus: 404 })).toEqual({ status: 502, retryable: false });
    expect(classifyPlatformFailure({ kind: 'network' })).toEqual({ status: 502, retryable: true });
    expect(classifyPlatformFailure({ kind: 'timeout' })).toEqual({ status: 504, retryable: true });
    expect(classifyPlatformFailure({ kind: 'invalid_response' })).toEqual({ status: 502, retryable: false });
  });

  it('gives every known errcode a hint a person can act on, and knows the token-expiry codes', () => {
    for (const [errcode, rule] of ERRCODE_RULES) expect({ errcode, hint: rule.hint.length > 15 && rule.hint.endsWith('.') }).toEqual({ errcode, hint: true });
    expect([...TOKEN_EXPIRED_ERRCODES].sort()).toEqual([40014, 42001]);
  });
});
