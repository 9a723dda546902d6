import { HttpException } from '@nestjs/common';
import { toProblem } from '../../common/http/problem-details';
import { ChatPlatformError, MAX_ERRMSG_LENGTH, redactSecrets } from './chat-platform.error';

describe('ChatPlatformError', () => {
  it('renders as a problem with the mapped status and the platform code as extension members', () => {
    const error = ChatPlatformError.errcode('markCustomerTags', 40068, 'invalid tagid');
    expect(error).toBeInstanceOf(HttpException);
    expect(error.getStatus()).toBe(400);
    expect(error.retryable).toBe(false);
    expect(toProblem(error, '/api/t1/mcp/chat/contact/customer/tag/add')).toEqual({
      type: 'about:blank',
      title: 'Bad Request',
      status: 400,
      detail: 'Chat platform call markCustomerTags failed: errcode 40068 (invalid tagid). The chat platform does not know this tag id; sync tags and try again.',
      instance: '/api/t1/mcp/chat/contact/customer/tag/add',
      platformOperation: 'markCustomerTags',
      platformErrorCode: 40068,
      platformErrorMessage: 'invalid tagid',
    });
  });

  it('renders a transport failure without an errcode member', () => {
    const timeout = new ChatPlatformError({ operation: 'listStaff', kind: 'timeout', reason: 'timed out' });
    const problem = toProblem(timeout, '/x');
    expect(problem.status).toBe(504);
    expect(problem.detail).toBe('Chat platform call listStaff failed: the platform did not answer in time (timed out).');
    expect(problem).not.toHaveProperty('platformErrorCode');
    expect(timeout.retryable).toBe(true);
    const status = new ChatPlatformError({ operation: 'getContactWay', kind: 'http_status', httpStatus: 503 });
    expect([status.getStatus(), status.httpStatus, status.message]).toEqual([502, 503, 'Chat platform call getContactWay failed: the platform answered HTTP 503.']);
  });

  it('cuts a long platform message', () => {
    const error = ChatPlatformError.errcode('sendMessage', 84061, 'x'.repeat(1000));
    expect(error.errmsg).toHaveLength(MAX_ERRMSG_LENGTH);
  });
});

describe('redactSecrets', () => {
  it('replaces every occurrence of each secret and leaves short values alone', () => {
    expect(redactSecrets('token ABCDEF refused, ABCDEF again; key k', ['ABCDEF', 'k', undefined])).toBe('token [redacted] refused, [redacted] again; key k');
  });
});
