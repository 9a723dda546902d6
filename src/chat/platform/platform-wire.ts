import type {
  ContactWayInput,
  GroupWayInput,
  PlatformContactWay,
  PlatformCustomerTag,
  PlatformExternalContact,
  PlatformExternalContactOfStaff,
  PlatformFollow,
  PlatformGroupChat,
  PlatformGroupWay,
  PlatformStaff,
  PlatformTagGroup,
} from './chat-platform.port';

/**
 * The WeCom-style JSON of the platform's server API and its translation to and from the port's types. Pure
 * functions; a reply missing a required member throws WireFormatError, which the adapter reports as an
 * `invalid_response` failure.
 */

/** A reply body: every platform reply is a JSON object with `errcode` (0 = success) and `errmsg`. */
export type WireReply = Record<string, unknown> & { errcode: number; errmsg?: string };

/** A reply member was missing or of the wrong type. The message names the member, never a value. */
export class WireFormatError extends Error {
  override readonly name = 'WireFormatError';
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function record(value: unknown, member: string): Record<string, unknown> {
  if (!isRecord(value)) throw new WireFormatError(`${member} is not an object`);
  return value;
}

function str(source: Record<string, unknown>, member: string): string {
  const value = source[member];
  if (typeof value !== 'string') throw new WireFormatError(`${member} is missing`);
  return value;
}

function optStr(source: Record<string, unknown>, member: string): string | undefined {
  const value = source[member];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function num(source: Record<string, unknown>, member: string, fallback?: number): number {
  const value = source[member];
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (fallback !== undefined) return fallback;
  throw new WireFormatError(`${member} is missing`);
}

function list(source: Record<string, unknown>, member: string): unknown[] {
  const value = source[member];
  return Array.isArray(value) ? value : [];
}

const strings = (values: unknown[]): string[] => values.filter((value): value is string => typeof value === 'string');
const numbers = (values: unknown[]): number[] => values.filter((value): value is number => typeof value === 'number');

/** Epoch seconds (the platform's timestamps) → Date; 0 when absent. */
const fromSeconds = (seconds: number): Date => new Date(seconds * 1000);

/**
 * Parses a reply text into a WireReply: a JSON object whose `errcode` is a number (an object without `errcode`
 * counts as success, as the platform's media and list replies sometimes omit it).
 * @throws WireFormatError when the text is not a JSON object or `errcode` is not a number
 */
export function parseWireReply(text: string): WireReply {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new WireFormatError('reply is not JSON');
  }
  if (!isRecord(parsed)) throw new WireFormatError('reply is not a JSON object');
  if (parsed.errcode === undefined) return { ...parsed, errcode: 0 };
  if (typeof parsed.errcode !== 'number') throw new WireFormatError('errcode is not a number');
  return parsed as WireReply;
}

/** Body of `add_contact_way` (and, without type/scene, `update_contact_way`). */
export function contactWayBody(input: Partial<ContactWayInput>): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (input.type !== undefined) body.type = input.type;
  if (input.scene !== undefined) body.scene = input.scene;
  if (input.style !== undefined) body.style = input.style;
  if (input.remark !== undefined) body.remark = input.remark;
  if (input.skipVerify !== undefined || input.type !== undefined) body.skip_verify = input.skipVerify ?? true;
  if (input.state !== undefined) body.state = input.state;
  if (input.userIds !== undefined) body.user = input.userIds;
  if (input.departmentIds !== undefined) body.party = input.departmentIds;
  return body;
}

/** `get_contact_way` reply → PlatformContactWay. */
export function toPlatformContactWay(reply: WireReply): PlatformContactWay {
  const way = record(reply.contact_way, 'contact_way');
  return {
    configId: str(way, 'config_id'),
    type: num(way, 'type') === 2 ? 2 : 1,
    scene: num(way, 'scene') === 1 ? 1 : 2,
    qrCode: optStr(way, 'qr_code') ?? '',
    state: optStr(way, 'state'),
    remark: optStr(way, 'remark'),
    skipVerify: way.skip_verify !== false,
    userIds: strings(list(way, 'user')),
    departmentIds: numbers(list(way, 'party')),
  };
}

/** Body of `groupchat/add_join_way` and `update_join_way`. */
export function groupWayBody(input: GroupWayInput): Record<string, unknown> {
  const body: Record<string, unknown> = { scene: input.scene, chat_id_list: input.chatIds, auto_create_room: input.autoCreateRoom ? 1 : 0 };
  if (input.remark !== undefined) body.remark = input.remark;
  if (input.state !== undefined) body.state = input.state;
  if (input.roomBaseName !== undefined) body.room_base_name = input.roomBaseName;
  if (input.roomBaseId !== undefined) body.room_base_id = input.roomBaseId;
  return body;
}

/** `groupchat/get_join_way` reply → PlatformGroupWay. */
export function toPlatformGroupWay(reply: WireReply): PlatformGroupWay {
  const way = record(reply.join_way, 'join_way');
  const roomBaseId = way.room_base_id;
  return {
    configId: str(way, 'config_id'),
    scene: num(way, 'scene') === 1 ? 1 : 2,
    qrCode: optStr(way, 'qr_code') ?? '',
    chatIds: strings(list(way, 'chat_id_list')),
    remark: optStr(way, 'remark'),
    state: optStr(way, 'state'),
    autoCreateRoom: way.auto_create_room === 1 || way.auto_create_room === true,
    roomBaseName: optStr(way, 'room_base_name'),
    roomBaseId: typeof roomBaseId === 'number' ? roomBaseId : undefined,
  };
}

const STAFF_STATUSES = new Set([1, 2, 4, 5]);

/** `user/list` reply → PlatformStaff[]. */
export function toPlatformStaffList(reply: WireReply): PlatformStaff[] {
  return list(reply, 'userlist').map((item, index) => {
    const user = record(item, `userlist[${index}]`);
    const status = num(user, 'status', 1);
    return {
      userId: str(user, 'userid'),
      name: optStr(user, 'name') ?? str(user, 'userid'),
      mobile: optStr(user, 'mobile'),
      departmentIds: numbers(list(user, 'department')),
      status: (STAFF_STATUSES.has(status) ? status : 1) as PlatformStaff['status'],
    };
  });
}

/** `external_contact` object → PlatformExternalContact. */
export function toPlatformExternalContact(value: unknown): PlatformExternalContact {
  const contact = record(value, 'external_contact');
  const gender = num(contact, 'gender', 0);
  return {
    externalUserId: str(contact, 'external_userid'),
    name: optStr(contact, 'name') ?? '',
    type: num(contact, 'type', 1) === 2 ? 2 : 1,
    gender: gender === 1 || gender === 2 ? gender : 0,
    avatarUrl: optStr(contact, 'avatar'),
    unionId: optStr(contact, 'unionid'),
    corpName: optStr(contact, 'corp_name'),
  };
}

/**
 * A follower object → PlatformFollow. Takes both shapes: `follow_user[]` items of `get` (tags with names) and
 * `follow_info` of `batch/get_by_user` (`tag_id` list only).
 */
export function toPlatformFollow(value: unknown): PlatformFollow {
  const follow = record(value, 'follow_user');
  const tags: PlatformCustomerTag[] = Array.isArray(follow.tags)
    ? follow.tags.filter(isRecord).map((tag) => ({ tagId: optStr(tag, 'tag_id'), tagName: optStr(tag, 'tag_name'), groupName: optStr(tag, 'group_name'), type: num(tag, 'type', 1) === 2 ? 2 : 1 }))
    : strings(list(follow, 'tag_id')).map((tagId) => ({ tagId, type: 1 }));
  return {
    userId: str(follow, 'userid'),
    remark: optStr(follow, 'remark'),
    description: optStr(follow, 'description'),
    remarkMobiles: strings(list(follow, 'remark_mobiles')),
    createdAt: fromSeconds(num(follow, 'createtime', 0)),
    state: optStr(follow, 'state'),
    addWay: num(follow, 'add_way', 0),
    tags,
  };
}

/** `batch/get_by_user` list items → PlatformExternalContactOfStaff[]. */
export function toExternalContactsOfStaff(reply: WireReply): PlatformExternalContactOfStaff[] {
  return list(reply, 'external_contact_list').map((item, index) => {
    const row = record(item, `external_contact_list[${index}]`);
    return { contact: toPlatformExternalContact(row.external_contact), follow: toPlatformFollow(row.follow_info) };
  });
}

/** `groupchat/get` reply → PlatformGroupChat. */
export function toPlatformGroupChat(reply: WireReply): PlatformGroupChat {
  const chat = record(reply.group_chat, 'group_chat');
  return {
    chatId: str(chat, 'chat_id'),
    name: optStr(chat, 'name') ?? '',
    ownerUserId: str(chat, 'owner'),
    createdAt: fromSeconds(num(chat, 'create_time', 0)),
    notice: optStr(chat, 'notice'),
    members: list(chat, 'member_list')
      .filter(isRecord)
      .map((member) => ({
        userId: str(member, 'userid'),
        type: num(member, 'type', 2) === 1 ? 1 : 2,
        joinedAt: fromSeconds(num(member, 'join_time', 0)),
        joinScene: num(member, 'join_scene', 0),
        name: optStr(member, 'name') ?? optStr(member, 'group_nickname'),
      })),
    adminUserIds: list(chat, 'admin_list')
      .filter(isRecord)
      .map((admin) => optStr(admin, 'userid'))
      .filter((id): id is string => id !== undefined),
  };
}

/** A `tag_group` object → PlatformTagGroup (deleted tags are left out). */
export function toPlatformTagGroup(value: unknown): PlatformTagGroup {
  const group = record(value, 'tag_group');
  return {
    groupId: str(group, 'group_id'),
    groupName: optStr(group, 'group_name') ?? '',
    order: num(group, 'order', 0),
    createdAt: fromSeconds(num(group, 'create_time', 0)),
    tags: list(group, 'tag')
      .filter(isRecord)
      .filter((tag) => tag.deleted !== true)
      .map((tag) => ({ tagId: str(tag, 'id'), name: optStr(tag, 'name') ?? '', order: num(tag, 'order', 0), createdAt: fromSeconds(num(tag, 'create_time', 0)) })),
  };
}
