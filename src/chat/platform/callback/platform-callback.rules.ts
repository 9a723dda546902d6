import { decrypt as wecomDecrypt, getSignature } from '@wecom/crypto';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { timingSafeEqual } from 'node:crypto';
import {
  INBOUND_MESSAGE_TYPES,
  type ExternalContactAddedEvent,
  type InboundMedia,
  type InboundMessageEvent,
  type InboundMessageType,
} from '../chat-platform-events';

/**
 * Pure rules of the platform's event callback (issue 6, "An inbound customer message (from the platform callback
 * endpoint …)"; WeCom's callback encryption scheme, 加解密方案): the signature and timestamp check, opening the
 * encrypted envelope, reading the XML and mapping the decrypted XML to a ChatPlatformEvents event. Nothing here
 * logs; no message carries a secret or the decrypted payload. Every refusal is a {@link CallbackRefusal} whose
 * `status` the controller answers (400, 401).
 */

/** A refused callback: HTTP status (400 malformed/undecryptable, 401 signature) and a reason safe to answer. */
export class CallbackRefusal extends Error {
  override readonly name = 'CallbackRefusal';
  constructor(
    readonly status: 400 | 401,
    message: string,
  ) {
    super(message);
  }
}

/** The one answer to any failed signature check (which part failed is not revealed: signature, timestamp). */
export const SIGNATURE_REFUSAL = 'The callback signature is invalid or has expired.';

/** The query every callback carries (WeCom names). */
export interface CallbackSignatureParams {
  msgSignature: string;
  /** Seconds since the epoch, as the platform sent it (decimal digits). */
  timestamp: string;
  nonce: string;
}

/**
 * Whether a callback's timestamp is within `maxSkewMs` of now, either way (a replay of an old callback, or a clock
 * far ahead, is refused).
 * @param timestamp seconds since the epoch, decimal digits (anything else is not fresh)
 * @param nowMs the current time, ms since the epoch
 * @param maxSkewMs largest difference accepted, ms (CHAT_CALLBACK_MAX_SKEW_MS)
 */
export function isFreshTimestamp(timestamp: string, nowMs: number, maxSkewMs: number): boolean {
  if (!/^\d{1,12}$/.test(timestamp)) return false;
  return Math.abs(Number(timestamp) * 1000 - nowMs) <= maxSkewMs;
}

/**
 * Whether `params.msgSignature` is the platform's signature of (token, timestamp, nonce, encrypted) — SHA-1 of the
 * four sorted and joined (`@wecom/crypto` getSignature) — compared in constant time, case-insensitively.
 * @param token the corp's callback token
 * @param encrypted the `echostr` (URL verification) or the body's `Encrypt` element
 */
export function isValidSignature(token: string, params: CallbackSignatureParams, encrypted: string): boolean {
  const expected = Buffer.from(getSignature(token, params.timestamp, params.nonce, encrypted), 'utf8');
  const given = Buffer.from(params.msgSignature.toLowerCase(), 'utf8');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * Checks a callback's signature and freshness.
 * @throws CallbackRefusal (401, {@link SIGNATURE_REFUSAL}) a wrong signature or a timestamp outside the skew
 */
export function assertSignedAndFresh(token: string, params: CallbackSignatureParams, encrypted: string, nowMs: number, maxSkewMs: number): void {
  const signed = isValidSignature(token, params, encrypted);
  if (!signed || !isFreshTimestamp(params.timestamp, nowMs, maxSkewMs)) throw new CallbackRefusal(401, SIGNATURE_REFUSAL);
}

/**
 * Opens an encrypted callback payload (AES-256-CBC with the corp's EncodingAESKey, `@wecom/crypto` decrypt) and
 * checks that it was meant for this corp: the receiver id inside must be the corp's platform corp id.
 * @param aesKey the corp's EncodingAESKey (43 characters)
 * @param encrypted base64 ciphertext (`echostr` or the body's `Encrypt`)
 * @param receiverId the corp's platform corp id
 * @returns the plaintext (the echo string, or the event's XML)
 * @throws CallbackRefusal (400) the ciphertext cannot be decrypted, or names another receiver
 */
export function openEnvelope(aesKey: string, encrypted: string, receiverId: string): string {
  let opened: { message: string; id: string };
  try {
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encrypted)) throw new Error('not base64');
    opened = wecomDecrypt(aesKey, encrypted);
  } catch {
    throw new CallbackRefusal(400, 'The encrypted payload cannot be decrypted with the corp\'s EncodingAESKey.');
  }
  if (opened.id !== receiverId) throw new CallbackRefusal(400, 'The encrypted payload is not addressed to this corp.');
  return opened.message;
}

/** The parser of callback XML: no entity expansion, no attributes, every value a string. */
const XML_PARSER = new XMLParser({
  processEntities: false,
  htmlEntities: false,
  ignoreAttributes: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
  parseTagValue: false,
  trimValues: true,
  maxNestedTags: 8,
});

/**
 * Reads a flat callback XML document `<xml><Name>value</Name>…</xml>` (values as text or CDATA) into its fields.
 * DOCTYPE declarations (and so custom entities) are refused; entity references are not expanded (the platform sends
 * text in CDATA sections). Nested elements and repeated names are refused.
 * @param xml the document
 * @param what what the document is, for the refusal message ("The request body", "The decrypted event")
 * @returns field name → value ('' for an empty element)
 * @throws CallbackRefusal (400) not well-formed, a DOCTYPE, root not `xml`, a nested or repeated element
 */
export function parseCallbackXml(xml: string, what: string): Map<string, string> {
  const malformed = (why: string) => new CallbackRefusal(400, `${what} is not a callback XML document: ${why}.`);
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) throw malformed('DOCTYPE and ENTITY declarations are not accepted');
  if (XMLValidator.validate(xml) !== true) throw malformed('not well-formed XML');
  let document: unknown;
  try {
    document = XML_PARSER.parse(xml);
  } catch {
    throw malformed('not well-formed XML');
  }
  const roots = Object.keys(document as object);
  if (roots.length !== 1 || roots[0] !== 'xml') throw malformed('the root element must be <xml>');
  const root = (document as { xml: unknown }).xml;
  const fields = new Map<string, string>();
  if (root === '' || root === undefined) return fields;
  if (typeof root !== 'object' || root === null || Array.isArray(root)) throw malformed('<xml> must contain elements');
  for (const [name, value] of Object.entries(root)) {
    if (Array.isArray(value)) throw malformed(`<${name}> appears more than once`);
    if (typeof value !== 'string') throw malformed(`<${name}> must contain text`);
    fields.set(name, value);
  }
  return fields;
}

/** The corp a callback arrived for (Atrium's ids and the platform's corp id). */
export interface CallbackCorp {
  tenantId: string;
  corpId: string;
  platformCorpId: string;
}

/** What a decrypted callback means: an event to publish, or something acknowledged and ignored (with why). */
export type CallbackOutcome =
  | { kind: 'event'; event: ExternalContactAddedEvent | InboundMessageEvent }
  | { kind: 'ignored'; reason: string };

/** Platform ids (user ids, external user ids, chat ids): 1..64 characters, no whitespace or control characters. */
const PLATFORM_ID = /^[^\s\p{Cc}]{1,64}$/u;
/** Message ids: 1..64 letters, digits, "_" or "-" (as the simulator accepts them). */
const MSG_ID = /^[A-Za-z0-9_-]{1,64}$/;
/** Longest text content accepted, characters. */
export const MAX_CONTENT_CHARS = 16_384;
/** Longest media URL / file name / content type, characters. */
const MAX_URL_CHARS = 2048;
const MAX_FILE_NAME_CHARS = 255;
const MAX_CONTENT_TYPE_CHARS = 127;

/**
 * Maps the fields of a decrypted callback to a ChatPlatformEvents event (the accepted inner XML is documented in
 * docs/chat.md, "Platform callbacks"):
 * - `MsgType=event`, `Event=change_external_contact`, `ChangeType=add_external_contact` with `UserID`,
 *   `ExternalUserID` (and optional `State`) → `external_contact.added`;
 * - `MsgType` text|image|video|file|emotion|voice|link|location with `MsgId`, `FromUserName` (the customer's external
 *   user id), `UserID` (the staff member's user id; the group owner in a group chat) and optional `ChatId` (group
 *   chats), `Content` (required for text), media fields `MediaUrl`/`PicUrl`, `FileName`, `FileSize` (bytes),
 *   `ContentType`/`Format` → `message.received` (link: `Title`, `Description`, `Url`; location: `Label`,
 *   `Location_X`, `Location_Y`);
 * - any other event or message type → ignored (acknowledged).
 * `CreateTime` (seconds since the epoch) is the event's time; without it, `now`.
 * @throws CallbackRefusal (400) a required field is missing or a field is malformed
 */
export function toCallbackOutcome(fields: Map<string, string>, corp: CallbackCorp, now: Date): CallbackOutcome {
  const msgType = fields.get('MsgType');
  if (!msgType) throw new CallbackRefusal(400, 'The decrypted event has no MsgType.');
  const occurredAt = createTime(fields, now);
  const base = { tenantId: corp.tenantId, corpId: corp.corpId, platformCorpId: corp.platformCorpId, occurredAt };
  if (msgType === 'event') {
    const event = fields.get('Event') ?? '';
    const change = fields.get('ChangeType') ?? '';
    if (event !== 'change_external_contact' || change !== 'add_external_contact') return { kind: 'ignored', reason: `event ${clip(event || '(none)')}${change ? `/${clip(change)}` : ''}` };
    const state = optionalField(fields, 'State', 64);
    return {
      kind: 'event',
      event: { type: 'external_contact.added', ...base, userId: platformId(fields, 'UserID'), externalUserId: platformId(fields, 'ExternalUserID'), ...(state ? { state } : {}) },
    };
  }
  if (!(INBOUND_MESSAGE_TYPES as readonly string[]).includes(msgType)) return { kind: 'ignored', reason: `message type ${clip(msgType)}` };
  const type = msgType as InboundMessageType;
  const msgId = fields.get('MsgId') ?? '';
  if (!MSG_ID.test(msgId)) throw new CallbackRefusal(400, 'The decrypted message needs MsgId: 1..64 letters, digits, "_" or "-".');
  const chatId = fields.get('ChatId') ? platformId(fields, 'ChatId') : undefined;
  const content = messageContent(fields, type);
  if (type === 'text' && !content?.trim()) throw new CallbackRefusal(400, 'The decrypted text message has no Content.');
  const media = type === 'text' || type === 'location' ? undefined : messageMedia(fields, type);
  return {
    kind: 'event',
    event: {
      type: 'message.received',
      ...base,
      msgId,
      chatType: chatId ? 'group' : 'single',
      userId: platformId(fields, 'UserID'),
      externalUserId: platformId(fields, 'FromUserName'),
      ...(chatId ? { chatId } : {}),
      msgType: type,
      ...(content !== undefined ? { content } : {}),
      ...(media ? { media } : {}),
    },
  };
}

/** `CreateTime` (seconds) as a date, or `now` when absent. @throws CallbackRefusal (400) not a number of seconds */
function createTime(fields: Map<string, string>, now: Date): Date {
  const value = fields.get('CreateTime');
  if (!value) return now;
  if (!/^\d{1,12}$/.test(value)) throw new CallbackRefusal(400, 'CreateTime must be seconds since the epoch.');
  return new Date(Number(value) * 1000);
}

/** A required platform id field. @throws CallbackRefusal (400) missing or malformed */
function platformId(fields: Map<string, string>, name: string): string {
  const value = fields.get(name) ?? '';
  if (!PLATFORM_ID.test(value)) throw new CallbackRefusal(400, `The decrypted event needs ${name}: 1..64 characters without spaces.`);
  return value;
}

/** An optional text field of at most `maxChars` (undefined when absent or empty). @throws CallbackRefusal (400) too long */
function optionalField(fields: Map<string, string>, name: string, maxChars: number): string | undefined {
  const value = fields.get(name);
  if (!value) return undefined;
  if (value.length > maxChars) throw new CallbackRefusal(400, `${name} is longer than ${maxChars} characters.`);
  return value;
}

/** The text of a message: `Content`; for links the title and description, for locations the label (or coordinates). */
function messageContent(fields: Map<string, string>, type: InboundMessageType): string | undefined {
  let content = optionalField(fields, 'Content', MAX_CONTENT_CHARS);
  if (content === undefined && type === 'link') {
    const parts = [optionalField(fields, 'Title', 1024), optionalField(fields, 'Description', MAX_CONTENT_CHARS)].filter((part) => part !== undefined);
    content = parts.length > 0 ? parts.join('\n') : undefined;
  }
  if (content === undefined && type === 'location') {
    const x = fields.get('Location_X');
    const y = fields.get('Location_Y');
    content = optionalField(fields, 'Label', 1024) ?? (x && y && /^-?\d+(\.\d+)?$/.test(x) && /^-?\d+(\.\d+)?$/.test(y) ? `${x},${y}` : undefined);
  }
  if (content !== undefined && content.length > MAX_CONTENT_CHARS) throw new CallbackRefusal(400, `The message text is longer than ${MAX_CONTENT_CHARS} characters.`);
  return content;
}

/** The attachment a media message describes (undefined when it describes none). @throws CallbackRefusal (400) */
function messageMedia(fields: Map<string, string>, type: InboundMessageType): InboundMedia | undefined {
  const url = optionalField(fields, 'MediaUrl', MAX_URL_CHARS) ?? optionalField(fields, 'PicUrl', MAX_URL_CHARS) ?? (type === 'link' ? optionalField(fields, 'Url', MAX_URL_CHARS) : undefined);
  if (url !== undefined && !/^https?:\/\/\S+$/i.test(url)) throw new CallbackRefusal(400, 'MediaUrl / PicUrl / Url must be an http(s) URL.');
  const fileName = optionalField(fields, 'FileName', MAX_FILE_NAME_CHARS);
  const format = optionalField(fields, 'Format', 32);
  const contentType = optionalField(fields, 'ContentType', MAX_CONTENT_TYPE_CHARS) ?? (format && /^[A-Za-z0-9.+-]+$/.test(format) ? `${type === 'voice' ? 'audio' : 'application'}/${format.toLowerCase()}` : undefined);
  const size = fields.get('FileSize');
  if (size && !/^\d{1,15}$/.test(size)) throw new CallbackRefusal(400, 'FileSize must be a number of bytes.');
  const media: InboundMedia = {
    ...(fileName !== undefined ? { fileName } : {}),
    ...(contentType !== undefined ? { contentType } : {}),
    ...(size ? { sizeBytes: Number(size) } : {}),
    ...(url !== undefined ? { url } : {}),
  };
  return Object.keys(media).length > 0 ? media : undefined;
}

/** A platform-given name, shortened for a log line or an answer. */
function clip(value: string): string {
  const printable = value.replace(/[^\x20-\x7e]/g, '?');
  return printable.length > 40 ? `${printable.slice(0, 40)}…` : printable;
}
