import { randomBytes } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import * as wecomCrypto from '@wecom/crypto';

/**
 * A fake enterprise chat platform server (WeCom-style server API) on 127.0.0.1, for e2e tests of the HTTP adapter
 * of the chat platform port and of anything built on it (DESIGN.md, Testing: "a chat-platform server").
 *
 * It keeps simple in-memory state per corp (contact ways, join ways, staff, customers and followers, group chats,
 * tags, uploaded media, sent messages, robot messages), issues access tokens with a configurable (short) lifetime,
 * and can be told to expire or revoke tokens, answer a path with an HTTP status or an errcode N times, or answer late.
 * Every request is recorded. Unknown paths answer HTTP 404.
 */

/** One request as the fake received it. */
export interface FakePlatformRequest {
  method: string;
  /** The path without the query. */
  path: string;
  query: Record<string, string>;
  /** Parsed JSON body; for multipart uploads `{ fileName, contentType, size }`. */
  body: unknown;
  at: number;
}

/** What an injected failure answers. */
export type FakeFailure =
  | { status: number; body?: string }
  | { errcode: number; errmsg?: string }
  /** Answer normally, but only after `delayMs` (the client may time out; the platform still acts). */
  | { delayMs: number };

export interface FakeContactWay {
  config_id: string;
  type: number;
  scene: number;
  style?: number;
  remark?: string;
  skip_verify: boolean;
  state?: string;
  user: string[];
  party: number[];
  qr_code: string;
}

export interface FakeJoinWay {
  config_id: string;
  scene: number;
  remark?: string;
  auto_create_room: number;
  room_base_name?: string;
  room_base_id?: number;
  chat_id_list: string[];
  state?: string;
  qr_code: string;
}

export interface FakeCustomer {
  external_userid: string;
  name: string;
  type: number;
  gender: number;
  avatar?: string;
  unionid?: string;
  corp_name?: string;
  /** Followers: staff user id → follow info. */
  follow: Map<string, FakeFollow>;
}

/** A staff member's follow info of a customer. */
export interface FakeFollow {
  remark?: string;
  description?: string;
  remark_company?: string;
  remark_mobiles: string[];
  createtime: number;
  tag_id: string[];
  state?: string;
  add_way: number;
}

export interface FakeGroupChat {
  chat_id: string;
  name: string;
  owner: string;
  create_time: number;
  notice?: string;
  status: number;
  member_list: { userid: string; type: number; join_time: number; join_scene: number; name?: string }[];
}

export interface FakeTagGroup {
  group_id: string;
  group_name: string;
  order: number;
  create_time: number;
  tag: { id: string; name: string; order: number; create_time: number }[];
}

/** The platform's state of one corp. */
export interface FakeCorpState {
  contactWays: Map<string, FakeContactWay>;
  joinWays: Map<string, FakeJoinWay>;
  staff: { userid: string; name: string; mobile?: string; department: number[]; status: number }[];
  customers: Map<string, FakeCustomer>;
  groupChats: Map<string, FakeGroupChat>;
  tagGroups: FakeTagGroup[];
  media: Map<string, { type: string; fileName: string; contentType: string; size: number }>;
  /** add_msg_template bodies that were accepted, with the msgid given. */
  messages: { msgid: string; body: Record<string, unknown> }[];
}

export interface FakeChatPlatform {
  url: string;
  requests: FakePlatformRequest[];
  /** Number of requests received on `path` (e.g. `/cgi-bin/gettoken`). */
  callsTo(path: string): number;
  /** Accepts `corpId` with `secret` from now on. */
  addCorp(corpId: string, secret: string): void;
  /** State of a corp (created empty on first use). */
  corp(corpId: string): FakeCorpState;
  /** Tokens issued so far for the corp (all corps when omitted) answer 42001 (expired) from now on. */
  expireTokens(corpId?: string): void;
  /** Tokens issued so far answer 40014 (invalid) from now on. */
  revokeTokens(corpId?: string): void;
  /** The next `times` requests to `path` (any corp) get `failure` instead of the normal answer. */
  failNext(path: string, failure: FakeFailure, times?: number): void;
  /** Forgets failures queued by failNext that were not used yet (call between tests). */
  clearFailures(): void;
  /** Tokens issued so far, newest last. */
  issuedTokens(): string[];
  /** `expires_in` of tokens issued from now on, seconds (fractions allowed, for fast expiry tests). */
  setTokenTtlSeconds(seconds: number): void;
  /** Robot webhook messages received with a valid key. */
  robotMessages: { key: string; body: Record<string, unknown> }[];
  /** Robot webhook keys accepted. */
  addRobotKey(key: string): void;
  close(): Promise<void>;
}

export interface FakeChatPlatformOptions {
  /** Accepted credentials. */
  corps?: { corpId: string; secret: string }[];
  /** `expires_in` of issued tokens, seconds; default 7200. */
  tokenTtlSeconds?: number;
  /** Robot webhook keys accepted. */
  robotKeys?: string[];
}

type Reply = Record<string, unknown>;
const ok = (extra: Reply = {}): Reply => ({ errcode: 0, errmsg: 'ok', ...extra });
const fail = (errcode: number, errmsg: string): Reply => ({ errcode, errmsg });
const id = (prefix: string, length = 30) => prefix + randomBytes(length).toString('base64url').replace(/[-_]/g, 'x').slice(0, length);
const nowSeconds = () => Math.floor(Date.now() / 1000);

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The `media` part of a multipart body: file name, content type and byte size. */
function parseMultipart(contentType: string, body: Buffer): { fileName: string; contentType: string; size: number } | undefined {
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/.exec(contentType);
  if (!boundary) return undefined;
  const delimiter = `--${boundary[1] ?? boundary[2]}`;
  const text = body.toString('latin1');
  for (const part of text.split(delimiter)) {
    const headerEnd = part.indexOf('\r\n\r\n');
    if (headerEnd < 0) continue;
    const headers = part.slice(0, headerEnd);
    if (!/name="media"/.test(headers)) continue;
    const data = part.slice(headerEnd + 4).replace(/\r\n$/, '');
    return { fileName: /filename="([^"]*)"/.exec(headers)?.[1] ?? '', contentType: /content-type:\s*([^\r\n]+)/i.exec(headers)?.[1] ?? '', size: Buffer.byteLength(data, 'latin1') };
  }
  return undefined;
}

/**
 * Starts the fake platform on 127.0.0.1 (a port the OS picks).
 * @example const platform = await startFakeChatPlatform({ corps: [{ corpId: 'ww1', secret: 's' }], tokenTtlSeconds: 2 });
 */
export async function startFakeChatPlatform(options: FakeChatPlatformOptions = {}): Promise<FakeChatPlatform> {
  const secrets = new Map((options.corps ?? []).map((corp) => [corp.corpId, corp.secret]));
  const robotKeys = new Set(options.robotKeys ?? []);
  const tokens = new Map<string, { corpId: string; expiresAt: number; state: 'live' | 'expired' | 'revoked' }>();
  const corps = new Map<string, FakeCorpState>();
  const failures = new Map<string, FakeFailure[]>();
  const requests: FakePlatformRequest[] = [];
  const robotMessages: FakeChatPlatform['robotMessages'] = [];
  let ttl = options.tokenTtlSeconds ?? 7200;

  const corp = (corpId: string): FakeCorpState => {
    let state = corps.get(corpId);
    if (!state) {
      state = { contactWays: new Map(), joinWays: new Map(), staff: [], customers: new Map(), groupChats: new Map(), tagGroups: [], media: new Map(), messages: [] };
      corps.set(corpId, state);
    }
    return state;
  };

  /** The corp of a valid token, or the errcode reply. */
  const authorize = (query: Record<string, string>): { corpId: string } | Reply => {
    const token = query.access_token;
    if (!token) return fail(41001, 'access_token missing');
    const entry = tokens.get(token);
    if (!entry || entry.state === 'revoked') return fail(40014, 'invalid access_token');
    if (entry.state === 'expired' || Date.now() >= entry.expiresAt) return fail(42001, 'access_token expired');
    return { corpId: entry.corpId };
  };

  const handlers: Record<string, (state: FakeCorpState, body: Reply, query: Record<string, string>, upload?: { fileName: string; contentType: string; size: number }) => Reply> = {
    'POST /cgi-bin/externalcontact/add_contact_way': (state, body) => {
      const users = Array.isArray(body.user) ? (body.user as string[]) : [];
      if (body.type !== 1 && body.type !== 2) return fail(40058, 'invalid type');
      if (body.type === 1 && users.length !== 1) return fail(40058, 'type 1 needs exactly one user');
      for (const user of users) if (!state.staff.some((staff) => staff.userid === user)) return fail(60111, `userid not found: ${user}`);
      const way: FakeContactWay = {
        config_id: randomBytes(16).toString('hex'),
        type: body.type as number,
        scene: body.scene as number,
        style: body.style as number | undefined,
        remark: body.remark as string | undefined,
        skip_verify: body.skip_verify !== false,
        state: body.state as string | undefined,
        user: users,
        party: (body.party as number[]) ?? [],
        qr_code: `https://fake-platform.test/qr/${id('', 20)}`,
      };
      state.contactWays.set(way.config_id, way);
      return ok({ config_id: way.config_id, qr_code: way.qr_code });
    },
    'POST /cgi-bin/externalcontact/get_contact_way': (state, body) => {
      const way = state.contactWays.get(body.config_id as string);
      return way ? ok({ contact_way: way }) : fail(40058, 'invalid config_id');
    },
    'POST /cgi-bin/externalcontact/update_contact_way': (state, body) => {
      const way = state.contactWays.get(body.config_id as string);
      if (!way) return fail(40058, 'invalid config_id');
      if (body.user !== undefined) way.user = body.user as string[];
      if (body.state !== undefined) way.state = body.state as string;
      if (body.remark !== undefined) way.remark = body.remark as string;
      if (body.skip_verify !== undefined) way.skip_verify = body.skip_verify as boolean;
      return ok();
    },
    'POST /cgi-bin/externalcontact/del_contact_way': (state, body) => (state.contactWays.delete(body.config_id as string) ? ok() : fail(40058, 'invalid config_id')),
    'POST /cgi-bin/externalcontact/groupchat/add_join_way': (state, body) => {
      const chats = (body.chat_id_list as string[]) ?? [];
      if (chats.length === 0 || chats.some((chat) => !state.groupChats.has(chat))) return fail(40058, 'invalid chat_id_list');
      const way: FakeJoinWay = {
        config_id: randomBytes(16).toString('hex'),
        scene: body.scene as number,
        remark: body.remark as string | undefined,
        auto_create_room: (body.auto_create_room as number) ?? 0,
        room_base_name: body.room_base_name as string | undefined,
        room_base_id: body.room_base_id as number | undefined,
        chat_id_list: chats,
        state: body.state as string | undefined,
        qr_code: `https://fake-platform.test/join/${id('', 20)}`,
      };
      state.joinWays.set(way.config_id, way);
      return ok({ config_id: way.config_id });
    },
    'POST /cgi-bin/externalcontact/groupchat/get_join_way': (state, body) => {
      const way = state.joinWays.get(body.config_id as string);
      return way ? ok({ join_way: way }) : fail(40058, 'invalid config_id');
    },
    'POST /cgi-bin/externalcontact/groupchat/update_join_way': (state, body) => {
      const way = state.joinWays.get(body.config_id as string);
      if (!way) return fail(40058, 'invalid config_id');
      Object.assign(way, { ...body, config_id: way.config_id, qr_code: way.qr_code });
      return ok();
    },
    'POST /cgi-bin/externalcontact/groupchat/del_join_way': (state, body) => (state.joinWays.delete(body.config_id as string) ? ok() : fail(40058, 'invalid config_id')),
    'GET /cgi-bin/user/list': (state) => ok({ userlist: state.staff }),
    'POST /cgi-bin/externalcontact/batch/get_by_user': (state, body) => {
      const users = (body.userid_list as string[]) ?? [];
      const limit = Math.min((body.limit as number) || 50, 100);
      const rows = [...state.customers.values()].flatMap((customer) =>
        [...customer.follow.entries()].filter(([userid]) => users.includes(userid)).map(([userid, follow]) => ({ customer, userid, follow })),
      );
      const start = body.cursor ? Number(body.cursor) : 0;
      const page = rows.slice(start, start + limit);
      return ok({
        external_contact_list: page.map(({ customer, userid, follow }) => ({ external_contact: contactJson(customer), follow_info: { userid, ...follow } })),
        next_cursor: start + limit < rows.length ? String(start + limit) : '',
      });
    },
    'GET /cgi-bin/externalcontact/get': (state, _body, query) => {
      const customer = state.customers.get(query.external_userid);
      if (!customer) return fail(40096, 'invalid external_userid');
      const tagById = new Map(state.tagGroups.flatMap((group) => group.tag.map((tag) => [tag.id, { tag, group }] as const)));
      return ok({
        external_contact: contactJson(customer),
        follow_user: [...customer.follow.entries()].map(([userid, follow]) => ({
          userid,
          remark: follow.remark,
          description: follow.description,
          createtime: follow.createtime,
          remark_mobiles: follow.remark_mobiles,
          add_way: follow.add_way,
          state: follow.state,
          tags: follow.tag_id.map((tagId) => ({ tag_id: tagId, tag_name: tagById.get(tagId)?.tag.name, group_name: tagById.get(tagId)?.group.group_name, type: 1 })),
        })),
        next_cursor: '',
      });
    },
    'POST /cgi-bin/externalcontact/groupchat/list': (state, body) => {
      const owners = ((body.owner_filter as Reply | undefined)?.userid_list as string[] | undefined) ?? [];
      const chats = [...state.groupChats.values()].filter((chat) => owners.length === 0 || owners.includes(chat.owner));
      const limit = (body.limit as number) || 100;
      const start = body.cursor ? Number(body.cursor) : 0;
      return ok({ group_chat_list: chats.slice(start, start + limit).map((chat) => ({ chat_id: chat.chat_id, status: chat.status })), next_cursor: start + limit < chats.length ? String(start + limit) : '' });
    },
    'POST /cgi-bin/externalcontact/groupchat/get': (state, body) => {
      const chat = state.groupChats.get(body.chat_id as string);
      return chat ? ok({ group_chat: { ...chat, admin_list: [] } }) : fail(40058, 'invalid chat_id');
    },
    'POST /cgi-bin/externalcontact/remark': (state, body) => {
      const found = followOf(state, body);
      if ('error' in found) return found.error;
      const { follow } = found;
      if (body.remark !== undefined) follow.remark = body.remark as string;
      if (body.description !== undefined) follow.description = body.description as string;
      if (body.remark_mobiles !== undefined) follow.remark_mobiles = body.remark_mobiles as string[];
      return ok();
    },
    'POST /cgi-bin/externalcontact/get_corp_tag_list': (state) => ok({ tag_group: state.tagGroups }),
    'POST /cgi-bin/externalcontact/add_corp_tag': (state, body) => {
      let group = body.group_id ? state.tagGroups.find((candidate) => candidate.group_id === body.group_id) : state.tagGroups.find((candidate) => candidate.group_name === body.group_name);
      if (body.group_id && !group) return fail(40068, 'invalid group_id');
      if (!group) {
        group = { group_id: id('et'), group_name: body.group_name as string, order: 0, create_time: nowSeconds(), tag: [] };
        state.tagGroups.push(group);
      }
      const created = ((body.tag as { name: string; order?: number }[]) ?? []).map((tag) => ({ id: id('et'), name: tag.name, order: tag.order ?? 0, create_time: nowSeconds() }));
      if (created.some((tag) => group.tag.some((existing) => existing.name === tag.name))) return fail(40071, 'UserTag Name Already Exist');
      group.tag.push(...created);
      return ok({ tag_group: { ...group, tag: created } });
    },
    'POST /cgi-bin/externalcontact/edit_corp_tag': (state, body) => {
      const group = state.tagGroups.find((candidate) => candidate.group_id === body.id);
      const tag = state.tagGroups.flatMap((candidate) => candidate.tag).find((candidate) => candidate.id === body.id);
      if (group) group.group_name = body.name as string;
      else if (tag) tag.name = body.name as string;
      else return fail(40068, 'invalid tagid');
      return ok();
    },
    'POST /cgi-bin/externalcontact/mark_tag': (state, body) => {
      const found = followOf(state, body);
      if ('error' in found) return found.error;
      const { follow } = found;
      const known = new Set(state.tagGroups.flatMap((group) => group.tag.map((tag) => tag.id)));
      const add = (body.add_tag as string[]) ?? [];
      const remove = (body.remove_tag as string[]) ?? [];
      if ([...add, ...remove].some((tagId) => !known.has(tagId))) return fail(40068, 'invalid tagid');
      follow.tag_id = [...new Set([...follow.tag_id, ...add])].filter((tagId) => !remove.includes(tagId));
      return ok();
    },
    'POST /cgi-bin/media/upload': (state, _body, query, upload) => {
      if (!['image', 'voice', 'video', 'file'].includes(query.type)) return fail(40004, 'invalid media type');
      if (!upload || upload.size === 0) return fail(44001, 'empty media data');
      const mediaId = id('3', 40);
      state.media.set(mediaId, { type: query.type, ...upload });
      return ok({ type: query.type, media_id: mediaId, created_at: String(nowSeconds()) });
    },
    'POST /cgi-bin/externalcontact/add_msg_template': (state, body) => {
      const sender = body.sender as string;
      if (!state.staff.some((staff) => staff.userid === sender)) return fail(60111, 'userid not found');
      const attachments = (body.attachments as { msgtype: string; [type: string]: unknown }[]) ?? [];
      for (const attachment of attachments) {
        const mediaId = (attachment[attachment.msgtype] as { media_id?: string } | undefined)?.media_id;
        if (!mediaId || !state.media.has(mediaId)) return fail(40007, 'invalid media_id');
      }
      if (!attachments.length && !((body.text as Reply | undefined)?.content as string | undefined)?.trim()) return fail(44004, 'empty content');
      let failList: string[] = [];
      if (body.chat_type === 'group') {
        if (((body.chat_id_list as string[]) ?? []).some((chat) => !state.groupChats.has(chat))) return fail(40058, 'invalid chat_id_list');
      } else {
        failList = ((body.external_userid as string[]) ?? []).filter((externalUserId) => !state.customers.get(externalUserId)?.follow.has(sender));
      }
      const msgid = id('msg', 29);
      if (failList.length === 0) state.messages.push({ msgid, body });
      return ok({ fail_list: failList, msgid });
    },
  };

  const server: Server = createServer(async (request: IncomingMessage, response: ServerResponse) => {
    const raw = await readBody(request);
    const url = new URL(request.url ?? '/', 'http://fake');
    const query = Object.fromEntries(url.searchParams.entries());
    const contentType = String(request.headers['content-type'] ?? '');
    const upload = contentType.startsWith('multipart/form-data') ? parseMultipart(contentType, raw) : undefined;
    let body: Reply = {};
    if (!upload && raw.length > 0) {
      try {
        body = JSON.parse(raw.toString('utf8')) as Reply;
      } catch {
        body = {};
      }
    }
    requests.push({ method: request.method ?? 'GET', path: url.pathname, query, body: upload ?? (raw.length ? body : undefined), at: Date.now() });
    const send = (status: number, payload: string, type = 'application/json') => {
      if (response.destroyed) return;
      response.writeHead(status, { 'content-type': type });
      response.end(payload);
    };

    const queued = failures.get(url.pathname);
    const failure = queued?.shift();
    if (failure && 'delayMs' in failure) await new Promise((resolve) => setTimeout(resolve, failure.delayMs));
    else if (failure && 'status' in failure) return send(failure.status, failure.body ?? JSON.stringify({ error: 'injected failure' }), failure.body ? 'text/plain' : 'application/json');
    else if (failure && 'errcode' in failure) return send(200, JSON.stringify(fail(failure.errcode, failure.errmsg ?? `injected errcode ${failure.errcode}`)));

    if (request.method === 'GET' && url.pathname === '/cgi-bin/gettoken') {
      const secret = secrets.get(query.corpid ?? '');
      if (secret === undefined) return send(200, JSON.stringify(fail(40013, 'invalid corpid')));
      if (secret !== query.corpsecret) return send(200, JSON.stringify(fail(40001, 'invalid credential')));
      const token = id('', 64);
      tokens.set(token, { corpId: query.corpid, expiresAt: Date.now() + ttl * 1000, state: 'live' });
      return send(200, JSON.stringify(ok({ access_token: token, expires_in: ttl })));
    }
    if (request.method === 'POST' && url.pathname === '/cgi-bin/webhook/send') {
      if (!robotKeys.has(query.key ?? '')) return send(200, JSON.stringify(fail(93000, 'invalid webhook url')));
      robotMessages.push({ key: query.key, body });
      return send(200, JSON.stringify(ok()));
    }
    const handler = handlers[`${request.method} ${url.pathname}`];
    if (!handler) return send(404, JSON.stringify({ error: 'not found' }));
    const auth = authorize(query);
    if ('errcode' in auth) return send(200, JSON.stringify(auth));
    return send(200, JSON.stringify(handler(corp(auth.corpId as string), body, query, upload)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };

  const markTokens = (corpId: string | undefined, state: 'expired' | 'revoked') => {
    for (const entry of tokens.values()) if (corpId === undefined || entry.corpId === corpId) entry.state = state;
  };

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    callsTo: (path) => requests.filter((request) => request.path === path).length,
    addCorp: (corpId, secret) => void secrets.set(corpId, secret),
    corp,
    expireTokens: (corpId) => markTokens(corpId, 'expired'),
    revokeTokens: (corpId) => markTokens(corpId, 'revoked'),
    failNext: (path, failure, times = 1) => {
      const queue = failures.get(path) ?? [];
      for (let i = 0; i < times; i++) queue.push(failure);
      failures.set(path, queue);
    },
    clearFailures: () => failures.clear(),
    issuedTokens: () => [...tokens.keys()],
    setTokenTtlSeconds: (seconds) => {
      ttl = seconds;
    },
    robotMessages,
    addRobotKey: (key) => void robotKeys.add(key),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function contactJson(customer: FakeCustomer): Reply {
  const { follow: _follow, ...contact } = customer;
  return contact;
}

/** The follow info a remark/mark_tag body names, or the errcode reply. */
function followOf(state: FakeCorpState, body: Reply): { follow: FakeFollow } | { error: Reply } {
  const customer = state.customers.get(body.external_userid as string);
  if (!customer) return { error: fail(40096, 'invalid external_userid') };
  const follow = customer.follow.get(body.userid as string);
  return follow ? { follow } : { error: fail(84061, 'not external contact') };
}

/** Seeds a staff member into a corp of the fake. */
export function addFakeStaff(platform: FakeChatPlatform, corpId: string, staff: { userid: string; name?: string; mobile?: string }): void {
  platform.corp(corpId).staff.push({ userid: staff.userid, name: staff.name ?? staff.userid, mobile: staff.mobile, department: [1], status: 1 });
}

/**
 * Seeds a customer who added the given staff members (tags by id, state of the contact way used).
 * @returns the customer's external user id
 */
export function addFakeCustomer(platform: FakeChatPlatform, corpId: string, customer: { name: string; followers: string[]; state?: string; tagIds?: string[] }): string {
  const externalUserId = id('wm');
  const follow: FakeCustomer['follow'] = new Map(
    customer.followers.map((userid) => [userid, { remark_mobiles: [], createtime: nowSeconds(), tag_id: [...(customer.tagIds ?? [])], state: customer.state, add_way: 1 }]),
  );
  platform.corp(corpId).customers.set(externalUserId, { external_userid: externalUserId, name: customer.name, type: 1, gender: 0, follow });
  return externalUserId;
}

/**
 * Seeds a customer group chat.
 * @returns the chat id
 */
export function addFakeGroupChat(platform: FakeChatPlatform, corpId: string, chat: { name: string; owner: string; customers?: string[] }): string {
  const chatId = id('wr');
  const now = nowSeconds();
  platform.corp(corpId).groupChats.set(chatId, {
    chat_id: chatId,
    name: chat.name,
    owner: chat.owner,
    create_time: now,
    status: 0,
    member_list: [{ userid: chat.owner, type: 1, join_time: now, join_scene: 1 }, ...(chat.customers ?? []).map((userid) => ({ userid, type: 2, join_time: now, join_scene: 3 }))],
  });
  return chatId;
}

/*
 * The platform's event callbacks (WeCom-style, to the app's `/api/{tenant}/v1/workChat/callback/{workCorpId}`): the
 * fake seals an event's XML with a corp's callback keys and posts it, as the real platform does (加解密方案:
 * AES-256-CBC with the EncodingAESKey, SHA-1 msg_signature over token, timestamp, nonce and ciphertext).
 */

/** A corp's callback keys, shared by the platform and Atrium, and the receiver id sealed into every payload. */
export interface FakeCallbackKeys {
  /** Callback token: letters and digits (what the corp is created with as callbackToken). */
  token: string;
  /** EncodingAESKey: 43 letters and digits (callbackAesKey). */
  aesKey: string;
  /** The platform corp id the payloads are addressed to. */
  receiverId: string;
}

/** Options of a sealed callback: the signed timestamp (seconds; default now) and nonce (default random). */
export interface FakeCallbackOptions {
  timestamp?: number | string;
  nonce?: string;
}

/** Random callback keys for the platform corp `receiverId`. */
export function newCallbackKeys(receiverId: string): FakeCallbackKeys {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  const random = (length: number) => [...randomBytes(length)].map((byte) => alphabet[byte % alphabet.length]).join('');
  return { token: random(32), aesKey: random(43), receiverId };
}

/** The signature query of `encrypted` (msg_signature, timestamp, nonce), as the platform sends it. */
export function signCallback(keys: FakeCallbackKeys, encrypted: string, options: FakeCallbackOptions = {}): { msg_signature: string; timestamp: string; nonce: string } {
  const timestamp = String(options.timestamp ?? nowSeconds());
  const nonce = options.nonce ?? String(randomBytes(4).readUInt32BE(0));
  return { msg_signature: wecomCrypto.getSignature(keys.token, timestamp, nonce, encrypted), timestamp, nonce };
}

/** The query of a URL verification (`GET`) whose answer must be `echo`. */
export function callbackVerificationQuery(keys: FakeCallbackKeys, echo: string, options: FakeCallbackOptions = {}): Record<string, string> {
  const echostr = wecomCrypto.encrypt(keys.aesKey, echo, keys.receiverId);
  return { ...signCallback(keys, echostr, options), echostr };
}

/** Encrypts an event's XML for the corp and builds the signed request: query and `<xml><ToUserName/><Encrypt/><AgentID/></xml>` body. */
export function sealCallbackEvent(keys: FakeCallbackKeys, eventXml: string, options: FakeCallbackOptions & { agentId?: string } = {}): { query: Record<string, string>; body: string } {
  const encrypted = wecomCrypto.encrypt(keys.aesKey, eventXml, keys.receiverId);
  const body = `<xml><ToUserName><![CDATA[${keys.receiverId}]]></ToUserName><Encrypt><![CDATA[${encrypted}]]></Encrypt><AgentID><![CDATA[${options.agentId ?? '1000002'}]]></AgentID></xml>`;
  return { query: signCallback(keys, encrypted, options), body };
}

/** What the app answered a callback. */
export interface FakeCallbackAnswer {
  status: number;
  contentType: string | null;
  text: string;
}

/**
 * Seals `eventXml` and POSTs it to the app's callback URL of the corp (`Content-Type: text/xml`).
 * @param url e.g. `${baseUrl}/api/acme/v1/workChat/callback/ww123`
 */
export async function postCallbackEvent(url: string, keys: FakeCallbackKeys, eventXml: string, options: FakeCallbackOptions = {}): Promise<FakeCallbackAnswer> {
  const { query, body } = sealCallbackEvent(keys, eventXml, options);
  return postCallbackBody(url, query, body);
}

/** POSTs a raw callback body with the given query (for malformed and forged requests). */
export async function postCallbackBody(url: string, query: Record<string, string>, body: string | Buffer, contentType = 'text/xml'): Promise<FakeCallbackAnswer> {
  const response = await fetch(`${url}?${new URLSearchParams(query)}`, { method: 'POST', headers: { 'Content-Type': contentType }, body });
  return { status: response.status, contentType: response.headers.get('content-type'), text: await response.text() };
}

/** An event's XML: `<xml><Name><![CDATA[value]]></Name>…</xml>` (numbers as text). */
export function callbackXml(fields: Record<string, string | number | undefined>): string {
  const elements = Object.entries(fields)
    .filter((entry): entry is [string, string | number] => entry[1] !== undefined)
    .map(([name, value]) => (typeof value === 'number' ? `<${name}>${value}</${name}>` : `<${name}><![CDATA[${value}]]></${name}>`));
  return `<xml>${elements.join('')}</xml>`;
}

/** The XML of "a customer added a staff member" (`change_external_contact` / `add_external_contact`). */
export function contactAddedXml(input: { corpId: string; userId: string; externalUserId: string; state?: string; createTime?: number }): string {
  return callbackXml({
    ToUserName: input.corpId,
    FromUserName: 'sys',
    CreateTime: input.createTime ?? nowSeconds(),
    MsgType: 'event',
    Event: 'change_external_contact',
    ChangeType: 'add_external_contact',
    UserID: input.userId,
    ExternalUserID: input.externalUserId,
    State: input.state,
    WelcomeCode: 'WELCOMECODE',
  });
}

/** The XML of a customer's message to a staff member (or into a group chat with `chatId`). */
export function customerMessageXml(input: {
  corpId: string;
  msgId: string;
  externalUserId: string;
  userId: string;
  msgType?: string;
  content?: string;
  chatId?: string;
  createTime?: number;
  extra?: Record<string, string | number>;
}): string {
  return callbackXml({
    ToUserName: input.corpId,
    FromUserName: input.externalUserId,
    UserID: input.userId,
    ChatId: input.chatId,
    CreateTime: input.createTime ?? nowSeconds(),
    MsgType: input.msgType ?? 'text',
    Content: input.content,
    MsgId: input.msgId,
    ...input.extra,
  });
}
