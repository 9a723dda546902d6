import { Logger } from '@nestjs/common';
import { ChatPlatformEvents, type InboundMessageEvent } from './chat-platform-events';

const event: InboundMessageEvent = {
  type: 'message.received',
  tenantId: 't1',
  corpId: 'c1',
  platformCorpId: 'ww1',
  msgId: 'msg1',
  chatType: 'single',
  userId: 'zhangsan',
  externalUserId: 'wm1',
  msgType: 'text',
  content: 'hello',
  occurredAt: new Date(0),
};

describe('ChatPlatformEvents', () => {
  // The failing-listener case logs an error on purpose; keep the test output clean.
  beforeAll(() => Logger.overrideLogger(false));
  afterAll(() => Logger.overrideLogger(['log', 'error', 'warn', 'debug', 'verbose', 'fatal']));

  it('delivers to every listener in subscription order, awaiting each', async () => {
    const events = new ChatPlatformEvents();
    const seen: string[] = [];
    events.subscribe(async (received) => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      seen.push(`a:${received.type}`);
    });
    events.subscribe((received) => {
      seen.push(`b:${received.type}`);
    });
    await events.publish(event);
    expect(seen).toEqual(['a:message.received', 'b:message.received']);
    expect(events.listenerCount).toBe(2);
  });

  it('runs the other listeners when one fails, then reports the failure', async () => {
    const events = new ChatPlatformEvents();
    const seen: string[] = [];
    events.subscribe(() => {
      throw new Error('pipeline down');
    });
    events.subscribe(() => {
      seen.push('second');
    });
    const failure = await events.publish(event).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AggregateError);
    expect((failure as AggregateError).errors.map((error: Error) => error.message)).toEqual(['pipeline down']);
    expect(seen).toEqual(['second']);
  });

  it('stops delivering to a listener that unsubscribed', async () => {
    const events = new ChatPlatformEvents();
    let calls = 0;
    const unsubscribe = events.subscribe(() => {
      calls++;
    });
    await events.publish(event);
    unsubscribe();
    await events.publish(event);
    expect([calls, events.listenerCount]).toEqual([1, 0]);
  });
});
