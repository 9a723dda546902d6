/**
 * How a chat platform failure becomes an HTTP problem (issue 5: "errors mapped to problem details with the
 * platform's error code"). Pure rules, no I/O.
 *
 * | platform answer | status | retryable | why |
 * |---|---|---|---|
 * | errcode of input the platform rejected (unknown staff or customer, bad tag id, bad parameter, bad media, no contact relation, bad robot key) | 400 | no | the caller can fix the request |
 * | errcode 40071 (tag name already exists) | 409 | no | state conflict on the platform |
 * | errcode 45001 (media too large) | 413 | no | the attachment exceeds the platform's limit |
 * | errcode -1 (system busy), 45009 (rate limit) | 502 | yes | transient on the platform |
 * | no secret configured on the corp (41004) | 409 | no | the client sets the corp's `secret` |
 * | credential errcodes (40001, 40013, 40014, 42001 after the one refresh) and permission errcodes (48002, 60011, 60020) | 502 | no | the corp's platform setup must be fixed |
 * | any other errcode | 502 | no | platform refused for a reason we do not know |
 * | HTTP 5xx after retries, network error | 502 | yes | platform unavailable |
 * | HTTP status other than 2xx/5xx, a reply that is not the expected JSON | 502 | no | platform misbehaving |
 * | timeout | 504 | yes | platform too slow |
 *
 * The problem body carries `platformOperation` and, when the platform answered one, `platformErrorCode` and
 * `platformErrorMessage` (chat-platform.error.ts).
 */

/** What went wrong talking to the platform. */
export type ChatPlatformFailureKind = 'errcode' | 'http_status' | 'network' | 'timeout' | 'invalid_response';

/** How one errcode is treated. `hint` is a sentence a person can act on. */
export interface ErrcodeRule {
  status: 400 | 409 | 413 | 502;
  retryable: boolean;
  hint: string;
}

/** Access-token errcodes that make the HTTP adapter fetch a new token and retry the call once. */
export const TOKEN_EXPIRED_ERRCODES: ReadonlySet<number> = new Set([40014, 42001]);

/** Errcode of "system busy": the platform did not process the call; safe to retry even for creates and sends. */
export const SYSTEM_BUSY_ERRCODE = -1;

const input = (hint: string): ErrcodeRule => ({ status: 400, retryable: false, hint });
const setup = (hint: string): ErrcodeRule => ({ status: 502, retryable: false, hint });

/** The known errcodes (WeCom-style server API numbering). */
export const ERRCODE_RULES: ReadonlyMap<number, ErrcodeRule> = new Map<number, ErrcodeRule>([
  [-1, { status: 502, retryable: true, hint: 'The chat platform is busy; try again shortly.' }],
  [45009, { status: 502, retryable: true, hint: 'The corp hit the chat platform\'s API rate limit; try again later.' }],
  [40001, setup('The chat platform rejected the corp\'s secret; update the corp\'s platform credentials.')],
  [40013, setup('The chat platform does not know the corp id; check the corp\'s platform corp id.')],
  [41002, setup('The corp has no platform corp id configured.')],
  // The client can fix this itself (DESIGN.md: a setting the client must fix first is 409, never 5xx).
  [41004, { status: 409, retryable: false, hint: 'The corp has no platform secret configured. Set `secret` on the corp (PUT /api/{tenant}/console/workChat/corps/{id}).' }],
  [40014, setup('The chat platform rejected the access token even after a refresh; check the corp\'s credentials.')],
  [42001, setup('The chat platform reported the access token expired even after a refresh; check the corp\'s credentials.')],
  [41001, setup('The chat platform received no access token; check the corp\'s credentials.')],
  [48002, setup('The corp\'s platform application may not call this API; grant it the customer-contact permission in the platform admin console.')],
  [60011, setup('The corp\'s platform application has no access to this staff member or data; widen its visibility scope in the platform admin console.')],
  [60020, setup('The chat platform refuses calls from this server\'s IP address; add it to the application\'s trusted IPs.')],
  [40003, input('The staff user id is not valid on the chat platform; check the staff member\'s platform user id.')],
  [60111, input('The chat platform has no staff member with this user id; check the staff member\'s platform user id.')],
  [84074, input('The staff member has no customer-contact permission on the chat platform; enable it for them in the platform admin console.')],
  [40096, input('The chat platform does not know this customer (external user id); sync customers and try again.')],
  [84061, input('The customer is not a contact of this staff member on the chat platform.')],
  [40068, input('The chat platform does not know this tag id; sync tags and try again.')],
  [40035, input('The chat platform rejected a parameter of the request; check the values sent.')],
  [40058, input('The chat platform rejected a parameter of the request; check the values sent.')],
  [40004, input('The chat platform does not accept this media type.')],
  [40005, input('The chat platform does not accept this file type.')],
  [40006, input('The chat platform does not accept this file size.')],
  [40007, input('The attachment id is not valid on the chat platform (expired upload); send the file again.')],
  [44001, input('The attachment is empty.')],
  [44004, input('The text content is empty.')],
  [93000, input('The enterprise robot webhook key is not valid; copy the key from the robot\'s webhook address again.')],
  [40071, { status: 409, retryable: false, hint: 'A tag or tag group with this name already exists on the chat platform.' }],
  [45001, { status: 413, retryable: false, hint: 'The attachment is larger than the chat platform accepts.' }],
]);

/** The rule for `errcode`; an unknown code is a 502 that is not retried. */
export function errcodeRule(errcode: number): ErrcodeRule {
  return ERRCODE_RULES.get(errcode) ?? { status: 502, retryable: false, hint: 'The chat platform refused the call.' };
}

/** The HTTP status and retryability of a failure (see the table above). */
export function classifyPlatformFailure(failure: { kind: ChatPlatformFailureKind; errcode?: number; httpStatus?: number }): { status: number; retryable: boolean } {
  switch (failure.kind) {
    case 'errcode': {
      const rule = errcodeRule(failure.errcode ?? 0);
      return { status: rule.status, retryable: rule.retryable };
    }
    case 'timeout':
      return { status: 504, retryable: true };
    case 'network':
      return { status: 502, retryable: true };
    case 'http_status':
      return { status: 502, retryable: (failure.httpStatus ?? 0) >= 500 };
    case 'invalid_response':
      return { status: 502, retryable: false };
  }
}
