import { MESSAGE_TYPES, type MessageType } from './chat-message.entity';
import { isUuidShaped } from '../../common/ids/uuid-shape';

/**
 * Pure rules of `sendChatContactMessage` (chat-management-api.md, message-send multipart fields; issue 6,
 * "Messages"): reading the `request` JSON text, whether a file goes with the type, which content types (decided
 * from the bytes) each type accepts, and the size limit of each type. Every refusal is a {@link MessageSendRefusal}
 * with a reason a person can act on; the caller maps `status` to 400 or 413.
 */

/** A refused send: HTTP status (400 bad input, 413 too large) and the reason. */
export class MessageSendRefusal extends Error {
  override readonly name = 'MessageSendRefusal';
  constructor(
    readonly status: 400 | 413,
    message: string,
  ) {
    super(message);
  }
}

/** The `request` field once read. */
export interface SendRequest {
  msgType: MessageType;
  /** The text of a text message (trimmed only for the emptiness check; sent as given). */
  content?: string;
  /** Id of the quoted message (chat_message.id). */
  quoteChatMsgId?: string;
}

/** Longest `request` field, characters. */
export const MAX_REQUEST_CHARS = 64 * 1024;

const REQUEST_KEYS = new Set(['msgType', 'msgBody', 'quoteChatMsgId']);

/**
 * Reads the `request` field: JSON text of an object `{ msgType, msgBody?: { content }, quoteChatMsgId? }`.
 * @param text the field as sent
 * @param maxTextChars longest text content, characters
 * @throws MessageSendRefusal (400) naming what is wrong: not JSON, not an object, unknown msgType, text without
 *   `msgBody.content` or over `maxTextChars`, `msgBody.content` on an attachment type, a quote id that is not a uuid,
 *   an unknown key
 */
export function parseSendRequest(text: unknown, maxTextChars: number): SendRequest {
  if (typeof text !== 'string' || text.trim() === '') throw new MessageSendRefusal(400, 'The multipart field `request` is required: JSON text with `msgType` (and `msgBody.content` for text).');
  if (text.length > MAX_REQUEST_CHARS) throw new MessageSendRefusal(400, `The field \`request\` is over ${MAX_REQUEST_CHARS} characters.`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new MessageSendRefusal(400, `The field \`request\` is not valid JSON (${(error as Error).message}).`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new MessageSendRefusal(400, 'The field `request` must be a JSON object.');
  const body = value as Record<string, unknown>;
  const unknown = Object.keys(body).filter((key) => !REQUEST_KEYS.has(key));
  if (unknown.length > 0) throw new MessageSendRefusal(400, `Unknown key(s) in \`request\`: ${unknown.join(', ')}; allowed: msgType, msgBody, quoteChatMsgId.`);
  const msgType = body.msgType;
  if (typeof msgType !== 'string' || !(MESSAGE_TYPES as readonly string[]).includes(msgType)) {
    throw new MessageSendRefusal(400, `\`request.msgType\` must be one of ${MESSAGE_TYPES.join(', ')}; got ${JSON.stringify(msgType ?? null)}.`);
  }
  const result: SendRequest = { msgType: msgType as MessageType };
  if (body.quoteChatMsgId !== undefined && body.quoteChatMsgId !== null) {
    if (!isUuidShaped(body.quoteChatMsgId)) throw new MessageSendRefusal(400, '`request.quoteChatMsgId` must be the id (uuid) of a message of this contact.');
    result.quoteChatMsgId = body.quoteChatMsgId.toLowerCase();
  }
  const msgBody = body.msgBody;
  if (msgBody !== undefined && msgBody !== null && (typeof msgBody !== 'object' || Array.isArray(msgBody))) throw new MessageSendRefusal(400, '`request.msgBody` must be an object.');
  const content = (msgBody as Record<string, unknown> | undefined | null)?.content;
  if (msgType === 'text') {
    if (typeof content !== 'string' || content.trim() === '') throw new MessageSendRefusal(400, 'A text message needs `request.msgBody.content`, a non-empty string.');
    if (content.length > maxTextChars) throw new MessageSendRefusal(400, `\`request.msgBody.content\` is ${content.length} characters; at most ${maxTextChars} (CHAT_MESSAGE_MAX_TEXT_CHARS).`);
    result.content = content;
  } else if (content !== undefined && content !== null) {
    throw new MessageSendRefusal(400, `A ${msgType} message carries its content in the \`file\` field; leave \`request.msgBody.content\` out.`);
  }
  return result;
}

/** Content types (from the bytes) each attachment type accepts; `file` accepts anything. */
export const ACCEPTED_CONTENT_TYPES: Readonly<Record<Exclude<MessageType, 'text' | 'file'>, readonly string[]>> = {
  image: ['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/bmp'],
  emotion: ['image/gif'],
  video: ['video/mp4', 'video/quicktime'],
};

/**
 * Checks that a file goes with the type: required for image, video, file and emotion, refused for text.
 * @throws MessageSendRefusal (400)
 */
export function checkFilePresence(msgType: MessageType, hasFile: boolean): void {
  if (msgType === 'text' && hasFile) throw new MessageSendRefusal(400, 'A text message takes no `file`; send the text in `request.msgBody.content`.');
  if (msgType !== 'text' && !hasFile) throw new MessageSendRefusal(400, `A ${msgType} message needs the attachment in the multipart field \`file\`.`);
}

/** Environment variable of each attachment type's size limit. */
export const SIZE_LIMIT_VARIABLES: Readonly<Record<Exclude<MessageType, 'text'>, string>> = {
  image: 'CHAT_MESSAGE_MAX_IMAGE_BYTES',
  video: 'CHAT_MESSAGE_MAX_VIDEO_BYTES',
  file: 'CHAT_MESSAGE_MAX_FILE_BYTES',
  emotion: 'CHAT_MESSAGE_MAX_EMOTION_BYTES',
};

/**
 * Checks an attachment's size and its type as decided from its bytes.
 * @param input.msgType an attachment type
 * @param input.size bytes
 * @param input.detectedType the content type from the magic bytes (`undefined` when unrecognised)
 * @param input.maxBytes the per-type limits, bytes
 * @throws MessageSendRefusal 400 empty file or bytes not of the type; 413 over the type's limit
 */
export function checkAttachment(input: { msgType: Exclude<MessageType, 'text'>; size: number; detectedType: string | undefined; maxBytes: Record<Exclude<MessageType, 'text'>, number> }): void {
  const { msgType, size } = input;
  const limit = input.maxBytes[msgType];
  if (size === 0) throw new MessageSendRefusal(400, 'The `file` is empty.');
  if (size > limit) throw new MessageSendRefusal(413, `The ${msgType} attachment is ${size} bytes; at most ${limit} bytes are accepted (${SIZE_LIMIT_VARIABLES[msgType]}).`);
  if (msgType === 'file') return;
  const accepted = ACCEPTED_CONTENT_TYPES[msgType];
  if (!input.detectedType || !accepted.includes(input.detectedType)) {
    throw new MessageSendRefusal(
      400,
      `The \`file\` is not ${msgType === 'emotion' ? 'a GIF' : `a supported ${msgType}`}: its bytes are ${input.detectedType ?? 'of no recognised type'}; a ${msgType} message takes ${accepted.join(', ')} (decided from the content, not the name).`,
    );
  }
}

/** The largest limit of any attachment type, bytes: the upload limit multer enforces before the type is known. */
export function largestAttachmentLimit(maxBytes: Record<Exclude<MessageType, 'text'>, number>): number {
  return Math.max(maxBytes.image, maxBytes.video, maxBytes.file, maxBytes.emotion);
}
