/**
 * The enterprise chat platform port (DESIGN.md, External peers; issue 5, "The enterprise chat platform port").
 *
 * Every operation of the chat wing that touches the platform (contact way QR codes, staff/customer/group sync,
 * remarks, tags, sending messages) goes through {@link ChatPlatform}. Two adapters implement it, chosen by
 * `CHAT_PLATFORM_MODE`: the built-in simulator (default; platform state in `chat_sim_*` tables) and the HTTP adapter
 * to a WeCom-style server API. Failures of either are thrown as `ChatPlatformError` (chat-platform.error.ts), which
 * renders as problem details carrying the platform's `errcode`.
 *
 * Identifiers: `userId` is a staff member's platform user id (the spec's `workChatUserId`), `externalUserId` a
 * customer's platform id, `chatId` a customer group chat's platform id, `configId` a contact way's or group way's
 * platform id. All are opaque strings chosen by the platform.
 */

/** Which adapter serves the port (`CHAT_PLATFORM_MODE`). */
export const CHAT_PLATFORM_MODES = ['simulator', 'http'] as const;
export type ChatPlatformMode = (typeof CHAT_PLATFORM_MODES)[number];

/** Nest injection token of the configured {@link ChatPlatform} adapter. */
export const CHAT_PLATFORM = Symbol('CHAT_PLATFORM');

/**
 * Who is calling: the tenant, Atrium's corp record and the corp's platform credentials. `secret` is write-only: it
 * is sent to the platform's token endpoint and nowhere else, never returned, never logged, never in an error.
 */
export interface ChatCorpContext {
  tenantId: string;
  /** Atrium's id of the corp record (not sent to the platform). */
  corpId: string;
  /** The platform's corp id (`corpid`). */
  platformCorpId: string;
  /** The corp application's secret (`corpsecret`). */
  secret: string;
}

/** The tenant alone, for calls that need no corp credentials (enterprise robot webhooks). */
export interface ChatTenantContext {
  tenantId: string;
}

/** A cursor-paged slice of a platform list; `nextCursor` is undefined on the last page. */
export interface ChatPlatformPage<T> {
  items: T[];
  nextCursor?: string;
}

// ---------------------------------------------------------------- contact ways (scene codes)

/**
 * A contact way ("联系我" scene code) customers scan or tap to add staff. WeCom semantics:
 * `type` 1 = one staff member, 2 = several (the platform picks one); `scene` 1 = mini-program button, 2 = QR code.
 */
export interface ContactWayInput {
  type: 1 | 2;
  scene: 1 | 2;
  /** Staff user ids; exactly one when `type` is 1. */
  userIds: string[];
  /** Department ids whose members may be picked (type 2 only). */
  departmentIds?: number[];
  /** Up to 30 characters, echoed back in the customer-added event so the wing knows which scene code was used. */
  state?: string;
  /** Operator's note, up to 30 characters on the platform. */
  remark?: string;
  /** Add without the staff member confirming; default true. */
  skipVerify?: boolean;
  /** Mini-program button style 1..3 (scene 1 only). */
  style?: number;
}

/** What `createContactWay` / `createGroupWay` return. */
export interface CreatedWay {
  configId: string;
  /** URL of the QR code image (scene 2); the platform's value as given. */
  qrCode: string;
}

/** A contact way as the platform holds it (the refresh of a QR code reads this). */
export interface PlatformContactWay extends Required<Pick<ContactWayInput, 'type' | 'scene' | 'userIds' | 'skipVerify'>> {
  configId: string;
  qrCode: string;
  state?: string;
  remark?: string;
  departmentIds: number[];
}

/** A customer-group join way ("加入群聊" scene code): scanning it joins one of `chatIds`. */
export interface GroupWayInput {
  scene: 1 | 2;
  /** Group chat ids to fill in order, 1..5 on the platform. */
  chatIds: string[];
  remark?: string;
  state?: string;
  /** Create a new group when all are full. */
  autoCreateRoom?: boolean;
  /** Name prefix of auto-created groups. */
  roomBaseName?: string;
  /** Number suffix start of auto-created groups. */
  roomBaseId?: number;
}

export interface PlatformGroupWay extends CreatedWay {
  scene: 1 | 2;
  chatIds: string[];
  remark?: string;
  state?: string;
  autoCreateRoom: boolean;
  roomBaseName?: string;
  roomBaseId?: number;
}

// ---------------------------------------------------------------- staff, customers, groups

/** WeCom member status: 1 active, 2 disabled, 4 not activated, 5 left the corp. */
export type PlatformStaffStatus = 1 | 2 | 4 | 5;

/** A staff member (corp member) of the platform. */
export interface PlatformStaff {
  userId: string;
  name: string;
  mobile?: string;
  departmentIds: number[];
  status: PlatformStaffStatus;
}

/**
 * A tag on a customer, as seen by one staff member. `type` 1 = corp tag, 2 = personal tag (personal tags have no
 * id). Customer lists (listExternalContacts) give corp tag ids only; getExternalContact gives names too.
 */
export interface PlatformCustomerTag {
  tagId?: string;
  tagName?: string;
  groupName?: string;
  type: 1 | 2;
}

/** One staff member's side of a customer relation (WeCom `follow_user` / `follow_info`). */
export interface PlatformFollow {
  userId: string;
  remark?: string;
  description?: string;
  remarkMobiles: string[];
  /** When the customer added the staff member. */
  createdAt: Date;
  /** The `state` of the contact way the customer came through. */
  state?: string;
  /** How the customer was added (WeCom `add_way`: 1 QR code, 2 mobile search, …, 0 unknown). */
  addWay: number;
  tags: PlatformCustomerTag[];
}

/** A customer (external contact). `type` 1 = personal chat-app user, 2 = user of another enterprise. */
export interface PlatformExternalContact {
  externalUserId: string;
  name: string;
  type: 1 | 2;
  /** 0 unknown, 1 male, 2 female. */
  gender: 0 | 1 | 2;
  avatarUrl?: string;
  unionId?: string;
  /** The customer's enterprise (type 2). */
  corpName?: string;
}

/** One row of a staff member's customer list: the customer and that staff member's follow info. */
export interface PlatformExternalContactOfStaff {
  contact: PlatformExternalContact;
  follow: PlatformFollow;
}

/** A customer with every staff member who has them as a contact. */
export interface PlatformExternalContactDetail {
  contact: PlatformExternalContact;
  followers: PlatformFollow[];
}

export interface ListExternalContactsInput {
  /** Staff whose customers to list, 1..100. */
  userIds: string[];
  cursor?: string;
  /** Page size 1..100; default 100. */
  limit?: number;
}

/** A group chat id with its status (0 normal, 1 owner left, 2 handover pending, 3 handover done). */
export interface PlatformGroupChatRef {
  chatId: string;
  status: 0 | 1 | 2 | 3;
}

export interface ListGroupChatsInput {
  /** Only groups owned by these staff members; all when omitted. */
  ownerUserIds?: string[];
  cursor?: string;
  /** Page size 1..1000; default 100. */
  limit?: number;
}

/** A member of a group chat; `type` 1 = staff member, 2 = customer. */
export interface PlatformGroupMember {
  userId: string;
  type: 1 | 2;
  joinedAt: Date;
  /** 1 invited directly, 2 invited by link, 3 scanned a join way. */
  joinScene: number;
  name?: string;
}

export interface PlatformGroupChat {
  chatId: string;
  name: string;
  ownerUserId: string;
  createdAt: Date;
  notice?: string;
  members: PlatformGroupMember[];
  adminUserIds: string[];
}

// ---------------------------------------------------------------- remarks and tags

export interface UpdateCustomerRemarkInput {
  userId: string;
  externalUserId: string;
  /** Up to 20 characters on the platform; an empty string clears it. */
  remark?: string;
  description?: string;
  remarkCompany?: string;
  remarkMobiles?: string[];
}

export interface PlatformTag {
  tagId: string;
  name: string;
  order: number;
  createdAt: Date;
}

export interface PlatformTagGroup {
  groupId: string;
  groupName: string;
  order: number;
  createdAt: Date;
  tags: PlatformTag[];
}

/** Creates tags in an existing group (`groupId`) or in a group found or created by `groupName`. */
export interface CreateTagsInput {
  groupId?: string;
  groupName?: string;
  tags: { name: string; order?: number }[];
}

export interface MarkCustomerTagsInput {
  userId: string;
  externalUserId: string;
  addTagIds?: string[];
  removeTagIds?: string[];
}

// ---------------------------------------------------------------- messages

/** Message types the wing sends (chat-management-api.md, message-send multipart fields). */
export const OUTBOUND_MESSAGE_TYPES = ['text', 'image', 'video', 'file', 'emotion'] as const;
export type OutboundMessageType = (typeof OUTBOUND_MESSAGE_TYPES)[number];

/** An attachment; the adapter uploads it (temporary media) before sending. */
export interface OutboundMedia {
  fileName: string;
  contentType: string;
  data: Buffer;
}

/** What to send: a text, or one attachment (`emotion` is a GIF, sent as an image). */
export type OutboundMessage =
  | { msgType: 'text'; content: string }
  | { msgType: 'image' | 'video' | 'file' | 'emotion'; media: OutboundMedia };

export interface SendMessageInput {
  /** The staff member who sends. */
  senderUserId: string;
  externalUserId: string;
  message: OutboundMessage;
}

export interface SendGroupMessageInput {
  senderUserId: string;
  chatId: string;
  message: OutboundMessage;
}

export interface SentMessage {
  /** The platform's message id. */
  msgId: string;
  /** The platform's id of the uploaded attachment, for media messages. */
  mediaId?: string;
}

/** A message through an enterprise robot's webhook (key = the secret in the webhook URL; write-only). */
export interface RobotMessageInput {
  webhookKey: string;
  msgType: 'text' | 'markdown';
  content: string;
  /** Staff user ids to @-mention (text only); `@all` mentions everyone. */
  mentionedUserIds?: string[];
  mentionedMobiles?: string[];
}

// ---------------------------------------------------------------- the port

/**
 * The operations the chat wing needs from the enterprise chat platform. Every method rejects with
 * `ChatPlatformError` when the platform refuses or cannot be reached (see platform-errcodes.ts for the mapping to
 * HTTP statuses); no method returns a partial result.
 */
export interface ChatPlatform {
  readonly mode: ChatPlatformMode;

  /** Checks that the corp's credentials are accepted (fetches an access token). Used by diagnosis and corp setup. */
  verifyCredentials(ctx: ChatCorpContext): Promise<void>;

  /** Creates a contact way; returns its config id and QR code URL. */
  createContactWay(ctx: ChatCorpContext, input: ContactWayInput): Promise<CreatedWay>;
  /** Reads a contact way (its current QR code: the refresh operation). */
  getContactWay(ctx: ChatCorpContext, configId: string): Promise<PlatformContactWay>;
  /** Changes a contact way's staff, state, remark or verification; `type` and `scene` cannot change. */
  updateContactWay(ctx: ChatCorpContext, configId: string, input: Partial<Omit<ContactWayInput, 'type' | 'scene'>>): Promise<void>;
  deleteContactWay(ctx: ChatCorpContext, configId: string): Promise<void>;

  /** Creates a group join way; returns its config id and QR code URL. */
  createGroupWay(ctx: ChatCorpContext, input: GroupWayInput): Promise<CreatedWay>;
  getGroupWay(ctx: ChatCorpContext, configId: string): Promise<PlatformGroupWay>;
  updateGroupWay(ctx: ChatCorpContext, configId: string, input: GroupWayInput): Promise<void>;
  deleteGroupWay(ctx: ChatCorpContext, configId: string): Promise<void>;

  /** Every staff member of the corp (staff sync). */
  listStaff(ctx: ChatCorpContext): Promise<PlatformStaff[]>;
  /** The customers of some staff members with their follow info, paged by cursor (customer sync). */
  listExternalContacts(ctx: ChatCorpContext, input: ListExternalContactsInput): Promise<ChatPlatformPage<PlatformExternalContactOfStaff>>;
  /** One customer with all their followers and tags. */
  getExternalContact(ctx: ChatCorpContext, externalUserId: string): Promise<PlatformExternalContactDetail>;
  /** Customer group chats, paged by cursor (group sync). */
  listGroupChats(ctx: ChatCorpContext, input: ListGroupChatsInput): Promise<ChatPlatformPage<PlatformGroupChatRef>>;
  /** One group chat with its members. */
  getGroupChat(ctx: ChatCorpContext, chatId: string): Promise<PlatformGroupChat>;

  /** Sets a staff member's remark, description and remark mobiles of a customer. */
  updateCustomerRemark(ctx: ChatCorpContext, input: UpdateCustomerRemarkInput): Promise<void>;
  /** Corp tag groups with their tags; all when no filter is given. */
  listTags(ctx: ChatCorpContext, filter?: { tagIds?: string[]; groupIds?: string[] }): Promise<PlatformTagGroup[]>;
  /** Creates tags (and the group, when given by a new name); returns the group with the tags created. */
  createTags(ctx: ChatCorpContext, input: CreateTagsInput): Promise<PlatformTagGroup>;
  /** Renames a tag or a tag group (`id` is either kind of id). */
  renameTag(ctx: ChatCorpContext, id: string, name: string): Promise<void>;
  /** Adds and removes corp tags on a customer, as seen by one staff member. */
  markCustomerTags(ctx: ChatCorpContext, input: MarkCustomerTagsInput): Promise<void>;

  /** Sends a message from a staff member to a customer (uploading the attachment first). */
  sendMessage(ctx: ChatCorpContext, input: SendMessageInput): Promise<SentMessage>;
  /** Sends a message from a staff member into a customer group chat. */
  sendGroupMessage(ctx: ChatCorpContext, input: SendGroupMessageInput): Promise<SentMessage>;
  /** Posts through an enterprise robot webhook. */
  sendRobotMessage(ctx: ChatTenantContext, input: RobotMessageInput): Promise<void>;
}
