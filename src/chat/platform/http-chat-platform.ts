import { setTimeout as delay } from 'node:timers/promises';
import { sha256Hex } from '../../common/crypto/secrets';
import type { GuardedFetch, OutboundClient } from '../../common/outbound/outbound-client';
import type { AppConfig } from '../../config/app-config';
import { AccessTokenCache, type IssuedToken } from './access-token-cache';
import { ChatPlatformError, redactSecrets } from './chat-platform.error';
import type {
  ChatCorpContext,
  ChatPlatform,
  ChatPlatformPage,
  ChatTenantContext,
  ContactWayInput,
  CreatedWay,
  CreateTagsInput,
  GroupWayInput,
  ListExternalContactsInput,
  ListGroupChatsInput,
  MarkCustomerTagsInput,
  OutboundMessage,
  PlatformContactWay,
  PlatformExternalContactDetail,
  PlatformExternalContactOfStaff,
  PlatformFollow,
  PlatformGroupChat,
  PlatformGroupChatRef,
  PlatformGroupWay,
  PlatformStaff,
  PlatformTagGroup,
  RobotMessageInput,
  SendGroupMessageInput,
  SendMessageInput,
  SentMessage,
  UpdateCustomerRemarkInput,
} from './chat-platform.port';
import { TOKEN_EXPIRED_ERRCODES } from './platform-errcodes';
import { type AttemptFailure, backoffDelayMs, classifyFetchError, isRetryableAttempt, type PlatformRetryOptions } from './platform-retry';
import {
  contactWayBody,
  groupWayBody,
  parseWireReply,
  toExternalContactsOfStaff,
  toPlatformContactWay,
  toPlatformExternalContact,
  toPlatformFollow,
  toPlatformGroupChat,
  toPlatformGroupWay,
  toPlatformStaffList,
  toPlatformTagGroup,
  WireFormatError,
  type WireReply,
} from './platform-wire';

/** Settings of the HTTP adapter (from AppConfig.chatPlatform). */
export interface HttpChatPlatformOptions extends PlatformRetryOptions {
  /** Base URL of the platform's server API, without a trailing slash. */
  baseUrl: string;
  /** Timeout of one request (reply body included), ms. */
  timeoutMs: number;
  /**
   * Sends every request: the chat platform's guarded outbound client (CHAT_PLATFORM_ALLOW_PRIVATE_NETWORKS,
   * CHAT_PLATFORM_MAX_RESPONSE_BYTES; issue 19 item 1), with `timeoutMs` as its deadline.
   */
  fetch: GuardedFetch;
  /** Replace a cached token this long before it expires, ms. */
  tokenRefreshMarginMs: number;
  /** Waits `ms` ms between retries; injectable for tests. */
  sleep?: (ms: number) => Promise<void>;
  /** Clock in epoch ms; injectable for tests. */
  now?: () => number;
}

/** One call to the platform. */
interface PlatformRequest {
  /** The port operation, for errors. */
  operation: string;
  method: 'GET' | 'POST';
  path: string;
  query?: Record<string, string | number>;
  json?: unknown;
  /** A multipart body, built afresh for every attempt. */
  form?: () => FormData;
  /** Safe to repeat when the outcome of an attempt is unknown (see isRetryableAttempt). */
  idempotent: boolean;
}

/** Limits of the platform's list endpoints. */
const MAX_CONTACTS_PAGE = 100;
const MAX_GROUPS_PAGE = 1000;

/** Media upload type per outbound message type (`emotion` GIFs are images to the platform). */
const MEDIA_UPLOAD_TYPE = { image: 'image', emotion: 'image', video: 'video', file: 'file' } as const;

/**
 * The options of the HTTP adapter from the resolved configuration.
 * @param outbound the chat platform's outbound client (every request goes through it)
 * @throws Error when no base URL is configured
 */
export function httpChatPlatformOptions(config: AppConfig['chatPlatform'], outbound: OutboundClient): HttpChatPlatformOptions {
  if (!config.baseUrl) throw new Error('CHAT_PLATFORM_BASE_URL is required when CHAT_PLATFORM_MODE is http');
  return {
    baseUrl: config.baseUrl,
    timeoutMs: config.timeoutMs,
    fetch: outbound.fetch({ timeoutMs: config.timeoutMs }),
    retries: config.retries,
    baseDelayMs: config.retryBaseDelayMs,
    maxDelayMs: config.retryMaxDelayMs,
    tokenRefreshMarginMs: config.tokenRefreshMarginMs,
  };
}

/**
 * The HTTP adapter of the chat platform port: a WeCom-style server API (`GET /cgi-bin/gettoken`, `POST
 * /cgi-bin/externalcontact/...?access_token=…`) at `CHAT_PLATFORM_BASE_URL` (issue 5, "The enterprise chat platform
 * port").
 * - Access tokens are fetched per corp and cached until `tokenRefreshMarginMs` before expiry (AccessTokenCache); when
 *   the platform answers 40014/42001 the token is dropped, a new one fetched and the call repeated once.
 * - Failed attempts are retried with exponential backoff under isRetryableAttempt (5xx, busy, network; timeouts
 *   only for idempotent calls), at most `retries` times.
 * - Everything else becomes a ChatPlatformError. The secret and tokens travel only in query strings, which never
 *   appear in errors or logs (URLs are never put into messages).
 */
export class HttpChatPlatform implements ChatPlatform {
  readonly mode = 'http' as const;
  private readonly tokens: AccessTokenCache;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly options: HttpChatPlatformOptions) {
    this.tokens = new AccessTokenCache({ refreshMarginMs: options.tokenRefreshMarginMs, now: options.now });
    this.sleep = options.sleep ?? ((ms) => delay(ms));
  }

  async verifyCredentials(ctx: ChatCorpContext): Promise<void> {
    const key = tokenKey(ctx);
    this.tokens.invalidate(key);
    await this.tokens.getOrFetch(key, () => this.fetchToken(ctx, 'verifyCredentials'));
  }

  async createContactWay(ctx: ChatCorpContext, input: ContactWayInput): Promise<CreatedWay> {
    const reply = await this.call(ctx, { operation: 'createContactWay', method: 'POST', path: '/cgi-bin/externalcontact/add_contact_way', json: contactWayBody(input), idempotent: false });
    return this.read('createContactWay', () => ({ configId: requireString(reply, 'config_id'), qrCode: typeof reply.qr_code === 'string' ? reply.qr_code : '' }));
  }

  async getContactWay(ctx: ChatCorpContext, configId: string): Promise<PlatformContactWay> {
    const reply = await this.call(ctx, { operation: 'getContactWay', method: 'POST', path: '/cgi-bin/externalcontact/get_contact_way', json: { config_id: configId }, idempotent: true });
    return this.read('getContactWay', () => toPlatformContactWay(reply));
  }

  async updateContactWay(ctx: ChatCorpContext, configId: string, input: Partial<Omit<ContactWayInput, 'type' | 'scene'>>): Promise<void> {
    await this.call(ctx, { operation: 'updateContactWay', method: 'POST', path: '/cgi-bin/externalcontact/update_contact_way', json: { config_id: configId, ...contactWayBody(input) }, idempotent: true });
  }

  async deleteContactWay(ctx: ChatCorpContext, configId: string): Promise<void> {
    await this.call(ctx, { operation: 'deleteContactWay', method: 'POST', path: '/cgi-bin/externalcontact/del_contact_way', json: { config_id: configId }, idempotent: true });
  }

  /** Two platform calls: `add_join_way` gives the config id, `get_join_way` the QR code. */
  async createGroupWay(ctx: ChatCorpContext, input: GroupWayInput): Promise<CreatedWay> {
    const reply = await this.call(ctx, { operation: 'createGroupWay', method: 'POST', path: '/cgi-bin/externalcontact/groupchat/add_join_way', json: groupWayBody(input), idempotent: false });
    const configId = this.read('createGroupWay', () => requireString(reply, 'config_id'));
    const way = await this.getGroupWay(ctx, configId);
    return { configId, qrCode: way.qrCode };
  }

  async getGroupWay(ctx: ChatCorpContext, configId: string): Promise<PlatformGroupWay> {
    const reply = await this.call(ctx, { operation: 'getGroupWay', method: 'POST', path: '/cgi-bin/externalcontact/groupchat/get_join_way', json: { config_id: configId }, idempotent: true });
    return this.read('getGroupWay', () => toPlatformGroupWay(reply));
  }

  async updateGroupWay(ctx: ChatCorpContext, configId: string, input: GroupWayInput): Promise<void> {
    await this.call(ctx, { operation: 'updateGroupWay', method: 'POST', path: '/cgi-bin/externalcontact/groupchat/update_join_way', json: { config_id: configId, ...groupWayBody(input) }, idempotent: true });
  }

  async deleteGroupWay(ctx: ChatCorpContext, configId: string): Promise<void> {
    await this.call(ctx, { operation: 'deleteGroupWay', method: 'POST', path: '/cgi-bin/externalcontact/groupchat/del_join_way', json: { config_id: configId }, idempotent: true });
  }

  /** `user/list` of the root department with children: every member the application can see. */
  async listStaff(ctx: ChatCorpContext): Promise<PlatformStaff[]> {
    const reply = await this.call(ctx, { operation: 'listStaff', method: 'GET', path: '/cgi-bin/user/list', query: { department_id: 1, fetch_child: 1 }, idempotent: true });
    return this.read('listStaff', () => toPlatformStaffList(reply));
  }

  async listExternalContacts(ctx: ChatCorpContext, input: ListExternalContactsInput): Promise<ChatPlatformPage<PlatformExternalContactOfStaff>> {
    const limit = Math.min(Math.max(1, input.limit ?? MAX_CONTACTS_PAGE), MAX_CONTACTS_PAGE);
    const reply = await this.call(ctx, {
      operation: 'listExternalContacts',
      method: 'POST',
      path: '/cgi-bin/externalcontact/batch/get_by_user',
      json: { userid_list: input.userIds, cursor: input.cursor ?? '', limit },
      idempotent: true,
    });
    return this.read('listExternalContacts', () => ({ items: toExternalContactsOfStaff(reply), nextCursor: nextCursorOf(reply) }));
  }

  /** Follows the reply's `next_cursor` until every follower is read (the platform pages customers with many followers). */
  async getExternalContact(ctx: ChatCorpContext, externalUserId: string): Promise<PlatformExternalContactDetail> {
    const followers: PlatformFollow[] = [];
    let cursor: string | undefined;
    let contact: PlatformExternalContactDetail['contact'] | undefined;
    do {
      const reply = await this.call(ctx, {
        operation: 'getExternalContact',
        method: 'GET',
        path: '/cgi-bin/externalcontact/get',
        query: cursor ? { external_userid: externalUserId, cursor } : { external_userid: externalUserId },
        idempotent: true,
      });
      this.read('getExternalContact', () => {
        contact ??= toPlatformExternalContact(reply.external_contact);
        for (const follow of Array.isArray(reply.follow_user) ? reply.follow_user : []) followers.push(toPlatformFollow(follow));
      });
      cursor = nextCursorOf(reply);
    } while (cursor);
    return { contact: contact!, followers };
  }

  async listGroupChats(ctx: ChatCorpContext, input: ListGroupChatsInput): Promise<ChatPlatformPage<PlatformGroupChatRef>> {
    const limit = Math.min(Math.max(1, input.limit ?? 100), MAX_GROUPS_PAGE);
    const json: Record<string, unknown> = { status_filter: 0, cursor: input.cursor ?? '', limit };
    if (input.ownerUserIds?.length) json.owner_filter = { userid_list: input.ownerUserIds };
    const reply = await this.call(ctx, { operation: 'listGroupChats', method: 'POST', path: '/cgi-bin/externalcontact/groupchat/list', json, idempotent: true });
    return this.read('listGroupChats', () => ({
      items: (Array.isArray(reply.group_chat_list) ? reply.group_chat_list : []).map((item: unknown) => {
        const chat = item as { chat_id?: unknown; status?: unknown };
        if (typeof chat?.chat_id !== 'string') throw new WireFormatError('group_chat_list[].chat_id is missing');
        const status = typeof chat.status === 'number' && [0, 1, 2, 3].includes(chat.status) ? chat.status : 0;
        return { chatId: chat.chat_id, status: status as PlatformGroupChatRef['status'] };
      }),
      nextCursor: nextCursorOf(reply),
    }));
  }

  async getGroupChat(ctx: ChatCorpContext, chatId: string): Promise<PlatformGroupChat> {
    const reply = await this.call(ctx, { operation: 'getGroupChat', method: 'POST', path: '/cgi-bin/externalcontact/groupchat/get', json: { chat_id: chatId, need_name: 1 }, idempotent: true });
    return this.read('getGroupChat', () => toPlatformGroupChat(reply));
  }

  async updateCustomerRemark(ctx: ChatCorpContext, input: UpdateCustomerRemarkInput): Promise<void> {
    const json: Record<string, unknown> = { userid: input.userId, external_userid: input.externalUserId };
    if (input.remark !== undefined) json.remark = input.remark;
    if (input.description !== undefined) json.description = input.description;
    if (input.remarkCompany !== undefined) json.remark_company = input.remarkCompany;
    if (input.remarkMobiles !== undefined) json.remark_mobiles = input.remarkMobiles;
    await this.call(ctx, { operation: 'updateCustomerRemark', method: 'POST', path: '/cgi-bin/externalcontact/remark', json, idempotent: true });
  }

  async listTags(ctx: ChatCorpContext, filter: { tagIds?: string[]; groupIds?: string[] } = {}): Promise<PlatformTagGroup[]> {
    const json: Record<string, unknown> = {};
    if (filter.tagIds?.length) json.tag_id = filter.tagIds;
    if (filter.groupIds?.length) json.group_id = filter.groupIds;
    const reply = await this.call(ctx, { operation: 'listTags', method: 'POST', path: '/cgi-bin/externalcontact/get_corp_tag_list', json, idempotent: true });
    return this.read('listTags', () => (Array.isArray(reply.tag_group) ? reply.tag_group : []).map(toPlatformTagGroup));
  }

  async createTags(ctx: ChatCorpContext, input: CreateTagsInput): Promise<PlatformTagGroup> {
    const json: Record<string, unknown> = { tag: input.tags.map((tag) => (tag.order === undefined ? { name: tag.name } : { name: tag.name, order: tag.order })) };
    if (input.groupId !== undefined) json.group_id = input.groupId;
    if (input.groupName !== undefined) json.group_name = input.groupName;
    const reply = await this.call(ctx, { operation: 'createTags', method: 'POST', path: '/cgi-bin/externalcontact/add_corp_tag', json, idempotent: false });
    return this.read('createTags', () => toPlatformTagGroup(reply.tag_group));
  }

  async renameTag(ctx: ChatCorpContext, id: string, name: string): Promise<void> {
    await this.call(ctx, { operation: 'renameTag', method: 'POST', path: '/cgi-bin/externalcontact/edit_corp_tag', json: { id, name }, idempotent: true });
  }

  async markCustomerTags(ctx: ChatCorpContext, input: MarkCustomerTagsInput): Promise<void> {
    await this.call(ctx, {
      operation: 'markCustomerTags',
      method: 'POST',
      path: '/cgi-bin/externalcontact/mark_tag',
      json: { userid: input.userId, external_userid: input.externalUserId, add_tag: input.addTagIds ?? [], remove_tag: input.removeTagIds ?? [] },
      idempotent: true,
    });
  }

  /**
   * Uploads the attachment (media/upload) when there is one, then `add_msg_template` with chat_type single. A
   * customer the platform puts in `fail_list` is reported as errcode 84061 (no contact relation).
   */
  async sendMessage(ctx: ChatCorpContext, input: SendMessageInput): Promise<SentMessage> {
    const { content, mediaId } = await this.messageContent(ctx, 'sendMessage', input.message);
    const reply = await this.call(ctx, {
      operation: 'sendMessage',
      method: 'POST',
      path: '/cgi-bin/externalcontact/add_msg_template',
      json: { chat_type: 'single', external_userid: [input.externalUserId], sender: input.senderUserId, ...content },
      idempotent: false,
    });
    const failed = Array.isArray(reply.fail_list) ? reply.fail_list : [];
    if (failed.includes(input.externalUserId)) throw ChatPlatformError.errcode('sendMessage', 84061, 'the platform listed the customer in fail_list');
    return this.read('sendMessage', () => ({ msgId: requireString(reply, 'msgid'), ...(mediaId ? { mediaId } : {}) }));
  }

  /** As sendMessage with chat_type group and the one chat id in `chat_id_list`. */
  async sendGroupMessage(ctx: ChatCorpContext, input: SendGroupMessageInput): Promise<SentMessage> {
    const { content, mediaId } = await this.messageContent(ctx, 'sendGroupMessage', input.message);
    const reply = await this.call(ctx, {
      operation: 'sendGroupMessage',
      method: 'POST',
      path: '/cgi-bin/externalcontact/add_msg_template',
      json: { chat_type: 'group', chat_id_list: [input.chatId], sender: input.senderUserId, ...content },
      idempotent: false,
    });
    return this.read('sendGroupMessage', () => ({ msgId: requireString(reply, 'msgid'), ...(mediaId ? { mediaId } : {}) }));
  }

  /** `webhook/send?key=…`: no access token; the key is the credential and is redacted from every error. */
  async sendRobotMessage(_ctx: ChatTenantContext, input: RobotMessageInput): Promise<void> {
    const json =
      input.msgType === 'text'
        ? { msgtype: 'text', text: { content: input.content, mentioned_list: input.mentionedUserIds ?? [], mentioned_mobile_list: input.mentionedMobiles ?? [] } }
        : { msgtype: 'markdown', markdown: { content: input.content } };
    const request: PlatformRequest = { operation: 'sendRobotMessage', method: 'POST', path: '/cgi-bin/webhook/send', query: { key: input.webhookKey }, json, idempotent: false };
    const reply = await this.exchange(request, [input.webhookKey]);
    if (reply.errcode !== 0) throw ChatPlatformError.errcode(request.operation, reply.errcode, redactSecrets(String(reply.errmsg ?? ''), [input.webhookKey]));
  }

  // ---------------------------------------------------------------- internals

  /** The `text` or `attachments` member of a message template, uploading the attachment first. */
  private async messageContent(ctx: ChatCorpContext, operation: string, message: OutboundMessage): Promise<{ content: Record<string, unknown>; mediaId?: string }> {
    if (message.msgType === 'text') return { content: { text: { content: message.content } } };
    const type = MEDIA_UPLOAD_TYPE[message.msgType];
    const { media } = message;
    const reply = await this.call(ctx, {
      operation,
      method: 'POST',
      path: '/cgi-bin/media/upload',
      query: { type },
      form: () => {
        const form = new FormData();
        form.append('media', new Blob([new Uint8Array(media.data)], { type: media.contentType }), media.fileName);
        return form;
      },
      idempotent: true, // a repeated upload only leaves an unused temporary media id
    });
    const mediaId = this.read(operation, () => requireString(reply, 'media_id'));
    return { content: { attachments: [{ msgtype: type, [type]: { media_id: mediaId } }] }, mediaId };
  }

  /**
   * Calls the platform with the corp's access token: a cached one, else a fresh one; on 40014/42001 drops it,
   * fetches another and repeats the call once (the platform did not process a call it refused for its token).
   * @returns the reply, whose errcode is 0
   * @throws ChatPlatformError on any errcode or transport failure
   */
  private async call(ctx: ChatCorpContext, request: PlatformRequest): Promise<WireReply> {
    const key = tokenKey(ctx);
    for (let refreshed = false; ; refreshed = true) {
      const token = await this.tokens.getOrFetch(key, () => this.fetchToken(ctx, request.operation));
      const reply = await this.exchange({ ...request, query: { ...request.query, access_token: token } }, [ctx.secret, token]);
      if (reply.errcode === 0) return reply;
      if (TOKEN_EXPIRED_ERRCODES.has(reply.errcode) && !refreshed) {
        this.tokens.invalidate(key, token);
        continue;
      }
      throw ChatPlatformError.errcode(request.operation, reply.errcode, redactSecrets(String(reply.errmsg ?? ''), [ctx.secret, token]));
    }
  }

  /** `gettoken` for the corp. @throws ChatPlatformError (40001 wrong secret, 40013 unknown corp id, transport) */
  private async fetchToken(ctx: ChatCorpContext, operation: string): Promise<IssuedToken> {
    const reply = await this.exchange({ operation, method: 'GET', path: '/cgi-bin/gettoken', query: { corpid: ctx.platformCorpId, corpsecret: ctx.secret }, idempotent: true }, [ctx.secret]);
    if (reply.errcode !== 0) throw ChatPlatformError.errcode(operation, reply.errcode, redactSecrets(String(reply.errmsg ?? ''), [ctx.secret]));
    return this.read(operation, () => {
      const token = requireString(reply, 'access_token');
      const expiresIn = reply.expires_in;
      if (typeof expiresIn !== 'number' || !Number.isFinite(expiresIn)) throw new WireFormatError('expires_in is missing');
      return { token, expiresInSeconds: expiresIn };
    });
  }

  /**
   * Sends one request, retrying failed attempts that isRetryableAttempt allows (at most `retries` times, waiting
   * backoffDelayMs between). Redirects are not followed (the token would go elsewhere).
   * @param secrets values to strip from any platform text put into an error
   * @returns the parsed reply, whatever its errcode (a busy -1 is retried first, and returned when retries run out)
   * @throws ChatPlatformError on a non-2xx status, network failure, timeout or unreadable reply
   */
  private async exchange(request: PlatformRequest, secrets: string[]): Promise<WireReply> {
    const url = new URL(this.options.baseUrl + request.path);
    for (const [name, value] of Object.entries(request.query ?? {})) url.searchParams.set(name, String(value));
    for (let attempt = 1; ; attempt++) {
      let failure: AttemptFailure & { reason?: string };
      try {
        const body = request.form ? request.form() : request.json === undefined ? undefined : JSON.stringify(request.json);
        const headers: Record<string, string> = { accept: 'application/json' };
        if (typeof body === 'string') headers['content-type'] = 'application/json; charset=utf-8';
        const response = await this.options.fetch(url, { method: request.method, headers, body, redirect: 'manual' });
        const text = await response.text();
        if (response.status < 200 || response.status >= 300) {
          failure = { kind: 'http_status', httpStatus: response.status };
        } else {
          let reply: WireReply;
          try {
            reply = parseWireReply(text);
          } catch (error) {
            throw new ChatPlatformError({ operation: request.operation, kind: 'invalid_response', reason: (error as Error).message });
          }
          if (!isRetryableAttempt({ kind: 'errcode', errcode: reply.errcode }, request.idempotent) || attempt > this.options.retries) return reply;
          failure = { kind: 'errcode', errcode: reply.errcode };
        }
      } catch (error) {
        if (error instanceof ChatPlatformError) throw error;
        failure = classifyFetchError(error);
      }
      if (attempt > this.options.retries || !isRetryableAttempt(failure, request.idempotent)) {
        throw new ChatPlatformError({ operation: request.operation, kind: failure.kind, httpStatus: failure.httpStatus, errcode: failure.errcode, reason: failure.reason && redactSecrets(failure.reason, secrets) });
      }
      await this.sleep(backoffDelayMs(attempt, this.options));
    }
  }

  /** Runs a reply translation, turning a WireFormatError into an `invalid_response` ChatPlatformError. */
  private read<T>(operation: string, translate: () => T): T {
    try {
      return translate();
    } catch (error) {
      if (error instanceof WireFormatError) throw new ChatPlatformError({ operation, kind: 'invalid_response', reason: error.message });
      throw error;
    }
  }
}

/** Cache key of a corp's token: tenant, platform corp id and a hash of the secret (a new secret, a new token). */
function tokenKey(ctx: ChatCorpContext): string {
  return `${ctx.tenantId}\u0000${ctx.platformCorpId}\u0000${sha256Hex(ctx.secret)}`;
}

function requireString(reply: WireReply, member: string): string {
  const value = reply[member];
  if (typeof value !== 'string' || value === '') throw new WireFormatError(`${member} is missing`);
  return value;
}

function nextCursorOf(reply: WireReply): string | undefined {
  return typeof reply.next_cursor === 'string' && reply.next_cursor !== '' ? reply.next_cursor : undefined;
}
