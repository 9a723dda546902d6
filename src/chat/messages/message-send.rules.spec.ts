import { checkAttachment, checkFilePresence, largestAttachmentLimit, MessageSendRefusal, parseSendRequest } from './message-send.rules';

const MAX = { image: 100, video: 200, file: 300, emotion: 50 };

function refusal(fn: () => unknown): MessageSendRefusal {
  try {
    fn();
  } catch (error) {
    if (error instanceof MessageSendRefusal) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('parseSendRequest', () => {
  it('reads a text message with a quote', () => {
    const id = '0f8fad5b-d9cb-469f-a165-70867728950e';
    expect(parseSendRequest(JSON.stringify({ msgType: 'text', msgBody: { content: 'Hi' }, quoteChatMsgId: id.toUpperCase() }), 10)).toEqual({ msgType: 'text', content: 'Hi', quoteChatMsgId: id });
  });

  it('reads attachment types without a body', () => {
    for (const msgType of ['image', 'video', 'file', 'emotion']) expect(parseSendRequest(JSON.stringify({ msgType }), 10)).toEqual({ msgType });
  });

  it.each([
    [undefined, 'is required'],
    ['', 'is required'],
    ['{not json', 'not valid JSON'],
    ['[1]', 'must be a JSON object'],
    ['{"msgType":"voice"}', 'must be one of text, image, video, file, emotion; got "voice"'],
    ['{}', 'got null'],
    ['{"msgType":"text"}', 'needs `request.msgBody.content`'],
    ['{"msgType":"text","msgBody":{"content":"   "}}', 'needs `request.msgBody.content`'],
    ['{"msgType":"text","msgBody":{"content":"01234567890"}}', 'is 11 characters; at most 10'],
    ['{"msgType":"image","msgBody":{"content":"x"}}', 'leave `request.msgBody.content` out'],
    ['{"msgType":"text","msgBody":"x"}', '`request.msgBody` must be an object'],
    ['{"msgType":"text","msgBody":{"content":"x"},"quoteChatMsgId":"abc"}', 'must be the id (uuid)'],
    ['{"msgType":"text","msgBody":{"content":"x"},"extra":1}', 'Unknown key(s) in `request`: extra'],
  ])('refuses %p with 400', (text, reason) => {
    const error = refusal(() => parseSendRequest(text, 10));
    expect(error.status).toBe(400);
    expect(error.message).toContain(reason);
  });
});

describe('checkFilePresence', () => {
  it('requires a file for attachment types and refuses one for text', () => {
    expect(() => checkFilePresence('text', false)).not.toThrow();
    expect(() => checkFilePresence('image', true)).not.toThrow();
    expect(refusal(() => checkFilePresence('text', true)).message).toContain('takes no `file`');
    for (const type of ['image', 'video', 'file', 'emotion'] as const) expect(refusal(() => checkFilePresence(type, false)).message).toContain(`A ${type} message needs the attachment`);
  });
});

describe('checkAttachment', () => {
  it('accepts matching bytes within the limit', () => {
    expect(() => checkAttachment({ msgType: 'image', size: 100, detectedType: 'image/png', maxBytes: MAX })).not.toThrow();
    expect(() => checkAttachment({ msgType: 'emotion', size: 50, detectedType: 'image/gif', maxBytes: MAX })).not.toThrow();
    expect(() => checkAttachment({ msgType: 'video', size: 1, detectedType: 'video/mp4', maxBytes: MAX })).not.toThrow();
    expect(() => checkAttachment({ msgType: 'file', size: 300, detectedType: undefined, maxBytes: MAX })).not.toThrow();
  });

  it('refuses bytes that are not of the type (400), by content', () => {
    const png = refusal(() => checkAttachment({ msgType: 'emotion', size: 10, detectedType: 'image/png', maxBytes: MAX }));
    expect(png.status).toBe(400);
    expect(png.message).toContain('not a GIF: its bytes are image/png');
    expect(refusal(() => checkAttachment({ msgType: 'image', size: 10, detectedType: undefined, maxBytes: MAX })).message).toContain('of no recognised type');
    expect(refusal(() => checkAttachment({ msgType: 'video', size: 10, detectedType: 'image/png', maxBytes: MAX })).status).toBe(400);
  });

  it('refuses over the type\'s limit (413) and empty files (400)', () => {
    const big = refusal(() => checkAttachment({ msgType: 'emotion', size: 51, detectedType: 'image/gif', maxBytes: MAX }));
    expect(big.status).toBe(413);
    expect(big.message).toContain('at most 50 bytes are accepted (CHAT_MESSAGE_MAX_EMOTION_BYTES)');
    expect(refusal(() => checkAttachment({ msgType: 'file', size: 301, detectedType: undefined, maxBytes: MAX })).status).toBe(413);
    expect(refusal(() => checkAttachment({ msgType: 'file', size: 0, detectedType: undefined, maxBytes: MAX })).message).toBe('The `file` is empty.');
  });

  it('gives the largest limit for the upload', () => {
    expect(largestAttachmentLimit(MAX)).toBe(300);
  });
});
