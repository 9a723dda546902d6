import { encrypt, getSignature } from '@wecom/crypto';
import {
  assertSignedAndFresh,
  CallbackRefusal,
  isFreshTimestamp,
  isValidSignature,
  openEnvelope,
  parseCallbackXml,
  SIGNATURE_REFUSAL,
  toCallbackOutcome,
} from './platform-callback.rules';

const TOKEN = 'QDG6eK';
const AES_KEY = 'jWmYm7qr5nMoAUwZRjGtBxmz3KA1tkAj3ykkR6q2B2C';
const CORP = { tenantId: 'acme', corpId: '9f1c2d3e-0000-4000-8000-000000000001', platformCorpId: 'wx5823bf96d3bd56c7' };
const NOW = new Date('2026-11-20T08:00:00Z');
/** WeCom's published test vectors (token QDG6eK, EncodingAESKey above, receiver wx5823bf96d3bd56c7). */
const OFFICIAL_ECHOSTR = 'P9nAzCzyDtyTWESHep1vC5X9xho/qYX3Zpb4yKa9SKld1DsH3Iyt3tP3zNdtp+4RPcs8TgAE7OaBO+FZXvnaqQ==';
const OFFICIAL_ENCRYPT = 'RypEvHKD8QQKFhvQ6QleEB4J58tiPdvo+rtK1I9qca6aM/wvqnLSV5zEPeusUiX5L5X/0lWfrf0QADHHhGd3QczcdCUpj911L3vg3W/sYYvuJTs3TUUkSUXxaccAS0qhxchrRYt66wiSpGLYL42aM6A8dTT+6k4aSknmPj48kzJs8qLjvd4Xgpue06DOdnLxAUHzM6+kDZ+HMZfJYuR+LtwGc2hgf5gsijff0ekUNXZiqATP7PF5mZxZ3Izoun1s4zG4LUMnvw2r+KqCKIw+3IQH03v+BCA9nMELNqbSf6tiWSrXJB3LAVGUcallcrw8V2t9EL4EhzJWrQUax5wLVMNS0+rUPA3k22Ncx4XXZS9o0MBH27Bo6BpNelZpS+/uh9KsNlY6bHCmJU9p8g7m3fVKn28H3KDYA5Pl/T8Z1ptDAVe0lXdQ2YoyyH2uyPIGHBZZIs2pDBS8R07+qN+E7Q==';

/** The refusal `work` throws (status and message), or undefined. */
function refusalOf(work: () => unknown): { status: number; message: string } | undefined {
  try {
    work();
  } catch (error) {
    if (error instanceof CallbackRefusal) return { status: error.status, message: error.message };
    throw error;
  }
  return undefined;
}

const xml = (fields: Record<string, string>) => `<xml>${Object.entries(fields).map(([name, value]) => `<${name}><![CDATA[${value}]]></${name}>`).join('')}</xml>`;

describe('platform callback rules: signature and timestamp', () => {
  // WeCom's published test vector (加解密方案说明, developer.work.weixin.qq.com/document/path/90968): the event body.
  const params = { msgSignature: '477715d11cdb4164915debcba66cb864d751f3e6', timestamp: '1409659813', nonce: '1372623149' };
  const echostr = OFFICIAL_ENCRYPT;

  it('accepts the platform\'s signature of (token, timestamp, nonce, payload), in either case', () => {
    expect(isValidSignature(TOKEN, params, echostr)).toBe(true);
    expect(isValidSignature(TOKEN, { ...params, msgSignature: params.msgSignature.toUpperCase() }, echostr)).toBe(true);
    expect(isValidSignature(TOKEN, { msgSignature: '5c45ff5e21c57e6ad56bac8758b79b1d9ac89fd3', timestamp: '1409659589', nonce: '263014780' }, OFFICIAL_ECHOSTR)).toBe(true);
  });

  it('refuses a signature of another token, nonce, timestamp or payload, and a malformed one', () => {
    expect(isValidSignature('other', params, echostr)).toBe(false);
    expect(isValidSignature(TOKEN, { ...params, nonce: '1372623150' }, echostr)).toBe(false);
    expect(isValidSignature(TOKEN, { ...params, timestamp: '1409659814' }, echostr)).toBe(false);
    expect(isValidSignature(TOKEN, params, `${echostr}A`)).toBe(false);
    expect(isValidSignature(TOKEN, { ...params, msgSignature: params.msgSignature.slice(1) }, echostr)).toBe(false);
    expect(isValidSignature(TOKEN, { ...params, msgSignature: '' }, echostr)).toBe(false);
  });

  it('accepts timestamps within the skew either way, and nothing else', () => {
    const now = 1_795_404_000_000;
    expect(isFreshTimestamp('1795404000', now, 300_000)).toBe(true);
    expect(isFreshTimestamp('1795403700', now, 300_000)).toBe(true);
    expect(isFreshTimestamp('1795404300', now, 300_000)).toBe(true);
    expect(isFreshTimestamp('1795403699', now, 300_000)).toBe(false);
    expect(isFreshTimestamp('1795404301', now, 300_000)).toBe(false);
    for (const malformed of ['', '-1795404000', '1795404000.5', '0x6b0', '17954040001234', ' 1795404000']) expect(isFreshTimestamp(malformed, now, 300_000)).toBe(false);
  });

  it('answers a wrong signature and a stale timestamp with the same 401', () => {
    const fresh = { msgSignature: getSignature(TOKEN, '1795404000', 'n1', 'payload'), timestamp: '1795404000', nonce: 'n1' };
    expect(refusalOf(() => assertSignedAndFresh(TOKEN, fresh, 'payload', 1_795_404_000_000, 300_000))).toBeUndefined();
    const stale = refusalOf(() => assertSignedAndFresh(TOKEN, fresh, 'payload', 1_795_404_000_000 + 300_001, 300_000));
    const forged = refusalOf(() => assertSignedAndFresh(TOKEN, { ...fresh, msgSignature: '0'.repeat(40) }, 'payload', 1_795_404_000_000, 300_000));
    expect(stale).toEqual({ status: 401, message: SIGNATURE_REFUSAL });
    expect(forged).toEqual(stale);
  });
});

describe('platform callback rules: the encrypted envelope', () => {
  it('opens WeCom\'s published test vectors (URL verification echostr, event body) for their receiver', () => {
    expect(openEnvelope(AES_KEY, OFFICIAL_ECHOSTR, 'wx5823bf96d3bd56c7')).toBe('1616140317555161061');
    const event = parseCallbackXml(openEnvelope(AES_KEY, OFFICIAL_ENCRYPT, 'wx5823bf96d3bd56c7'), 'x');
    expect([event.get('MsgType'), event.get('Content'), event.get('MsgId')]).toEqual(['text', 'hello', '4561255354251345929']);
  });

  it('returns the plaintext of a payload sealed for the corp', () => {
    expect(openEnvelope(AES_KEY, encrypt(AES_KEY, 'echo-1234567890', CORP.platformCorpId), CORP.platformCorpId)).toBe('echo-1234567890');
  });

  it('refuses (400) a payload for another receiver, under another key, or not base64', () => {
    expect(refusalOf(() => openEnvelope(AES_KEY, encrypt(AES_KEY, 'x', 'ww-someone-else'), CORP.platformCorpId))).toEqual({ status: 400, message: 'The encrypted payload is not addressed to this corp.' });
    const otherKey = 'a'.repeat(43);
    expect(refusalOf(() => openEnvelope(AES_KEY, encrypt(otherKey, 'x', CORP.platformCorpId), CORP.platformCorpId))?.status).toBe(400);
    for (const garbage of ['', 'not base64!', 'QUJD', Buffer.alloc(48).toString('base64')]) {
      expect(refusalOf(() => openEnvelope(AES_KEY, garbage, CORP.platformCorpId))?.status).toBe(400);
    }
  });
});

describe('platform callback rules: XML', () => {
  it('reads a flat document, CDATA or text, every value a string', () => {
    const fields = parseCallbackXml('<?xml version="1.0"?><xml><ToUserName><![CDATA[ww1]]></ToUserName><AgentID>0100</AgentID><Empty/><CreateTime>1409659813</CreateTime></xml>', 'The body');
    expect([...fields]).toEqual([['ToUserName', 'ww1'], ['AgentID', '0100'], ['Empty', ''], ['CreateTime', '1409659813']]);
  });

  it('does not expand entities and refuses DOCTYPE declarations', () => {
    expect(parseCallbackXml('<xml><Content><![CDATA[a &amp; <b>]]></Content></xml>', 'x').get('Content')).toBe('a &amp; <b>');
    const bomb = '<?xml version="1.0"?><!DOCTYPE xml [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]><xml><Content>&b;</Content></xml>';
    expect(refusalOf(() => parseCallbackXml(bomb, 'The body'))).toEqual({ status: 400, message: 'The body is not a callback XML document: DOCTYPE and ENTITY declarations are not accepted.' });
    expect(refusalOf(() => parseCallbackXml('<!doctype xml SYSTEM "file:///etc/passwd"><xml/>', 'x'))?.status).toBe(400);
  });

  it('refuses malformed XML, another root, nested and repeated elements', () => {
    for (const bad of ['garbage', '', '<xml><a>1</xml>', '<xml><a>1</a>', '<root><a>1</a></root>', '<xml><a>1</a></xml><xml/>', '<xml><a><b>1</b></a></xml>', '<xml><a>1</a><a>2</a></xml>', '<xml>text</xml>']) {
      expect({ bad, status: refusalOf(() => parseCallbackXml(bad, 'x'))?.status }).toEqual({ bad, status: 400 });
    }
  });
});

describe('platform callback rules: events', () => {
  const outcome = (fields: Record<string, string>) => toCallbackOutcome(parseCallbackXml(xml(fields), 'x'), CORP, NOW);

  it('maps add_external_contact to external_contact.added with the state and CreateTime', () => {
    expect(outcome({ ToUserName: 'wx5823bf96d3bd56c7', FromUserName: 'sys', CreateTime: '1795404000', MsgType: 'event', Event: 'change_external_contact', ChangeType: 'add_external_contact', UserID: 'zhangsan', ExternalUserID: 'wmAbc123', State: 'spring-fair', WelcomeCode: 'WELCOMECODE' })).toEqual({
      kind: 'event',
      event: { type: 'external_contact.added', ...CORP, occurredAt: new Date(1_795_404_000_000), userId: 'zhangsan', externalUserId: 'wmAbc123', state: 'spring-fair' },
    });
    const withoutState = outcome({ MsgType: 'event', Event: 'change_external_contact', ChangeType: 'add_external_contact', UserID: 'zhangsan', ExternalUserID: 'wmAbc123' });
    expect(withoutState).toEqual({ kind: 'event', event: { type: 'external_contact.added', ...CORP, occurredAt: NOW, userId: 'zhangsan', externalUserId: 'wmAbc123' } });
  });

  it('maps a customer\'s text message to message.received (single chat)', () => {
    expect(outcome({ MsgType: 'text', MsgId: '7380012345678901234', FromUserName: 'wmAbc123', UserID: 'zhangsan', Content: 'Hello, is the store open?', CreateTime: '1795404001' })).toEqual({
      kind: 'event',
      event: { type: 'message.received', ...CORP, occurredAt: new Date(1_795_404_001_000), msgId: '7380012345678901234', chatType: 'single', userId: 'zhangsan', externalUserId: 'wmAbc123', msgType: 'text', content: 'Hello, is the store open?' },
    });
  });

  it('maps group messages and media fields', () => {
    const image = outcome({ MsgType: 'image', MsgId: 'm-1', FromUserName: 'wmAbc123', UserID: 'owner1', ChatId: 'wrRoom1', PicUrl: 'https://platform.example/p/1.jpg', MediaId: 'media-1' });
    expect(image).toMatchObject({ kind: 'event', event: { chatType: 'group', chatId: 'wrRoom1', userId: 'owner1', msgType: 'image', media: { url: 'https://platform.example/p/1.jpg' } } });
    expect(image.kind === 'event' && 'content' in image.event).toBe(false);
    const file = outcome({ MsgType: 'file', MsgId: 'm-2', FromUserName: 'wmAbc123', UserID: 'zhangsan', MediaUrl: 'https://platform.example/f/2', FileName: 'quote.pdf', FileSize: '12345', ContentType: 'application/pdf' });
    expect(file).toMatchObject({ event: { msgType: 'file', media: { url: 'https://platform.example/f/2', fileName: 'quote.pdf', sizeBytes: 12345, contentType: 'application/pdf' } } });
    const voice = outcome({ MsgType: 'voice', MsgId: 'm-3', FromUserName: 'wmAbc123', UserID: 'zhangsan', Format: 'AMR' });
    expect(voice).toMatchObject({ event: { msgType: 'voice', media: { contentType: 'audio/amr' } } });
    const video = outcome({ MsgType: 'video', MsgId: 'm-4', FromUserName: 'wmAbc123', UserID: 'zhangsan' });
    expect(video.kind === 'event' && 'media' in video.event).toBe(false);
    const link = outcome({ MsgType: 'link', MsgId: 'm-5', FromUserName: 'wmAbc123', UserID: 'zhangsan', Title: 'Our offer', Description: 'Spring deals', Url: 'https://shop.example/offer' });
    expect(link).toMatchObject({ event: { msgType: 'link', content: 'Our offer\nSpring deals', media: { url: 'https://shop.example/offer' } } });
    const location = outcome({ MsgType: 'location', MsgId: 'm-6', FromUserName: 'wmAbc123', UserID: 'zhangsan', Location_X: '23.134521', Location_Y: '113.358803', Scale: '20' });
    expect(location).toMatchObject({ event: { msgType: 'location', content: '23.134521,113.358803' } });
    expect(outcome({ MsgType: 'location', MsgId: 'm-7', FromUserName: 'wmAbc123', UserID: 'zhangsan', Label: 'Guangzhou' })).toMatchObject({ event: { content: 'Guangzhou' } });
  });

  it('ignores other events and message types', () => {
    expect(outcome({ MsgType: 'event', Event: 'change_external_contact', ChangeType: 'del_follow_user', UserID: 'zhangsan', ExternalUserID: 'wm1' })).toEqual({ kind: 'ignored', reason: 'event change_external_contact/del_follow_user' });
    expect(outcome({ MsgType: 'event', Event: 'enter_agent' })).toEqual({ kind: 'ignored', reason: 'event enter_agent' });
    expect(outcome({ MsgType: 'event' })).toEqual({ kind: 'ignored', reason: 'event (none)' });
    expect(outcome({ MsgType: 'miniprogram', MsgId: 'm-8' })).toEqual({ kind: 'ignored', reason: 'message type miniprogram' });
  });

  it('refuses (400) events missing what they need or with malformed fields', () => {
    const cases: Record<string, string>[] = [
      {},
      { MsgType: 'event', Event: 'change_external_contact', ChangeType: 'add_external_contact', UserID: 'zhangsan' },
      { MsgType: 'event', Event: 'change_external_contact', ChangeType: 'add_external_contact', UserID: 'zhang san', ExternalUserID: 'wm1' },
      { MsgType: 'text', FromUserName: 'wm1', UserID: 'zhangsan', Content: 'hi' },
      { MsgType: 'text', MsgId: 'bad id', FromUserName: 'wm1', UserID: 'zhangsan', Content: 'hi' },
      { MsgType: 'text', MsgId: 'm1', UserID: 'zhangsan', Content: 'hi' },
      { MsgType: 'text', MsgId: 'm1', FromUserName: 'wm1', Content: 'hi' },
      { MsgType: 'text', MsgId: 'm1', FromUserName: 'wm1', UserID: 'zhangsan', Content: '   ' },
      { MsgType: 'text', MsgId: 'm1', FromUserName: 'wm1', UserID: 'zhangsan', Content: 'hi', CreateTime: 'yesterday' },
      { MsgType: 'text', MsgId: 'm1', FromUserName: 'wm1', UserID: 'zhangsan', Content: 'x'.repeat(16_385) },
      { MsgType: 'text', MsgId: 'x'.repeat(65), FromUserName: 'wm1', UserID: 'zhangsan', Content: 'hi' },
      { MsgType: 'image', MsgId: 'm1', FromUserName: 'wm1', UserID: 'zhangsan', PicUrl: 'javascript:alert(1)' },
      { MsgType: 'file', MsgId: 'm1', FromUserName: 'wm1', UserID: 'zhangsan', FileSize: 'big' },
    ];
    for (const fields of cases) expect({ fields, status: refusalOf(() => outcome(fields))?.status }).toEqual({ fields, status: 400 });
  });
});
