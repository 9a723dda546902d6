import { Transform, Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, IsUrl, Matches, Max, Min } from 'class-validator';
import { ConfigVariable, declareConfig, toList, typedSlice } from '../config/config-variable';
import { CHAT_PLATFORM_MODES, type ChatPlatformMode } from './platform/chat-platform.port';
import { compileTrustedProxies } from './auth/token-request-rules';

/** Signing algorithms the chat wing may accept on OAuth2 access tokens: asymmetric only (never `none` or HS*). */
export const CHAT_OAUTH_ALGORITHM_CHOICES = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'] as const;

const AUTH = 'Chat auth';
const PLATFORM = 'Chat platform';
const CALLBACKS = 'Chat platform callbacks';
const LISTS = 'Chat lists';
const STAFF = 'Chat staff';
const CONTACTS = 'Chat contacts';
const DIAGNOSIS = 'Chat diagnosis';
const RULES = 'Chat rules';
const TOOLS = 'Chat tool providers';
const VARIABLES = 'Chat variables';
const SCRIPTS = 'Chat scripts';
const CHANNELS = 'Chat conversation groups and channels';
const MESSAGES = 'Chat messages';
const MCP = 'Chat MCP and tool-style endpoints';
const MODEL = 'Chat model';
const AI_REPLIES = 'Chat AI replies';
const PIPELINE = 'Chat inbound pipeline';
const ENT_ROBOT = 'Chat enterprise robot';

/** The chat management service's environment variables (chat-management.md), one group per area of the wing. */
export class ChatVariables {
  @ConfigVariable({
    group: AUTH,
    description: 'public base URL of the service; the built-in OAuth2 authorization server\'s issuer is this + `/oauth` (set it to the URL clients use, e.g. behind a proxy)',
    unit: 'url',
    defaultText: 'http://localhost:$PORT',
  })
  @IsOptional() @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'] })
  CHAT_PUBLIC_URL?: string;

  @ConfigVariable({
    group: AUTH,
    description: 'issuer of the chat access tokens when an external authorization server issues them (Keycloak, Auth0, …); its discovery document gives the JWKS and token URLs. Unset: the built-in server at `/oauth`',
    unit: 'url',
    defaultText: 'unset (the built-in server)',
  })
  @IsOptional() @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'] })
  CHAT_OAUTH_ISSUER?: string;

  @ConfigVariable({ group: AUTH, description: 'the `aud` every chat access token must carry (the built-in server puts it there)', unit: 'text' })
  @IsOptional() @IsString() @Matches(/^\S{1,200}$/, { message: 'CHAT_OAUTH_AUDIENCE must be 1..200 characters without spaces' })
  CHAT_OAUTH_AUDIENCE: string = 'atrium-chat';

  @ConfigVariable({
    group: AUTH,
    description: 'external issuer only: its JWKS; with `CHAT_OAUTH_TOKEN_URL` set too, discovery is skipped (no request to the issuer at start-up)',
    unit: 'url',
    defaultText: 'from discovery',
  })
  @IsOptional() @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'] })
  CHAT_OAUTH_JWKS_URL?: string;

  @ConfigVariable({
    group: AUTH,
    description: 'external issuer only: its token endpoint, shown in Swagger UI\'s client-credentials flow',
    unit: 'url',
    defaultText: 'from discovery',
  })
  @IsOptional() @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'] })
  CHAT_OAUTH_TOKEN_URL?: string;

  @ConfigVariable({ group: AUTH, description: 'access-token claim with the tenant id(s): a string or an array of strings', unit: 'text' })
  @IsOptional() @IsString() @Matches(/^\S{1,200}$/, { message: 'CHAT_OAUTH_TENANT_CLAIM must be 1..200 characters without spaces' })
  CHAT_OAUTH_TENANT_CLAIM: string = 'tenant';

  @ConfigVariable({
    group: AUTH,
    description: 'accepted JWS algorithms (asymmetric only; `none` and HS* are never accepted); must include `ES256` with the built-in server',
    unit: 'list',
  })
  @IsOptional() @Transform(toList) @IsIn(CHAT_OAUTH_ALGORITHM_CHOICES, { each: true, message: `each of CHAT_OAUTH_ALGORITHMS must be one of ${CHAT_OAUTH_ALGORITHM_CHOICES.join(', ')}` })
  CHAT_OAUTH_ALGORITHMS: string[] = ['RS256', 'ES256', 'PS256', 'EdDSA'];

  @ConfigVariable({ group: AUTH, description: 'leeway for `exp`/`nbf`, seconds', unit: 's' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(0) @Max(300)
  CHAT_OAUTH_CLOCK_TOLERANCE_S: number = 30;

  @ConfigVariable({
    group: AUTH,
    description: 'verified access tokens remembered per process until they expire, so a token\'s signature is checked once, not on every request (least recently used dropped first; 0: verify every request)',
    unit: 'count',
  })
  @IsOptional() @Type(() => Number) @IsInt() @Min(0) @Max(1_000_000)
  CHAT_AUTH_TOKEN_CACHE_MAX_ENTRIES: number = 1_000;

  @ConfigVariable({
    group: AUTH,
    description: 'how long the auth check reuses a tenant\'s existence and status; changes through this process apply at once, a change by another process (the `atrium-chat` CLI, another instance) after at most this long (0: read every request)',
    unit: 'ms',
  })
  @IsOptional() @Type(() => Number) @IsInt() @Min(0) @Max(60_000)
  CHAT_AUTH_TENANT_CACHE_TTL_MS: number = 5_000;

  @ConfigVariable({ group: AUTH, description: 'lifetime of the built-in server\'s access tokens, seconds (60..86400)', unit: 's' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(60) @Max(86_400)
  CHAT_OAUTH_TOKEN_TTL_S: number = 3600;

  @ConfigVariable({ group: AUTH, description: 'external issuer: timeout of the discovery and JWKS requests', unit: 'ms' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(100)
  CHAT_OAUTH_HTTP_TIMEOUT_MS: number = 5000;

  @ConfigVariable({
    group: AUTH,
    description: 'built-in server: peers (IP addresses, CIDR ranges, `loopback`) whose `X-Forwarded-*`/`Forwarded` headers the authorization server believes; from any other peer they are dropped. Its endpoints are always built from `CHAT_PUBLIC_URL`',
    unit: 'list',
    defaultText: 'none',
  })
  @IsOptional() @Transform(toList) @IsString({ each: true })
  CHAT_OAUTH_TRUSTED_PROXIES: string[] = [];

  @ConfigVariable({
    group: PLATFORM,
    description: 'chat platform adapter: `simulator` (built in, platform state in `chat_sim_*` tables, customers and inbound messages injected through the simulator) or `http` (a WeCom-style server API)',
    unit: 'text',
  })
  @IsOptional() @IsIn(CHAT_PLATFORM_MODES)
  CHAT_PLATFORM_MODE: ChatPlatformMode = 'simulator';

  @ConfigVariable({
    group: PLATFORM,
    description: 'base URL of the platform\'s server API (`/cgi-bin/gettoken`, `/cgi-bin/externalcontact/...` are appended); required with `CHAT_PLATFORM_MODE=http`',
    unit: 'url',
  })
  @IsOptional() @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'] })
  CHAT_PLATFORM_BASE_URL?: string;

  @ConfigVariable({ group: PLATFORM, description: 'timeout of one platform request, reply included (504 after it)', unit: 'ms' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  CHAT_PLATFORM_HTTP_TIMEOUT_MS: number = 10_000;

  @ConfigVariable({
    group: PLATFORM,
    description: 'retries after a 5xx, busy errcode (-1) or network failure; timeouts are retried only for reads, updates and deletes, never for creates and sends',
    unit: 'count',
  })
  @IsOptional() @Type(() => Number) @IsInt() @Min(0) @Max(10)
  CHAT_PLATFORM_HTTP_RETRIES: number = 2;

  @ConfigVariable({ group: PLATFORM, description: 'backoff before the first retry, doubling per retry (with jitter)', unit: 'ms' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(0)
  CHAT_PLATFORM_HTTP_RETRY_BASE_DELAY_MS: number = 200;

  @ConfigVariable({ group: PLATFORM, description: 'longest backoff between retries', unit: 'ms' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(0)
  CHAT_PLATFORM_HTTP_RETRY_MAX_DELAY_MS: number = 5_000;

  @ConfigVariable({
    group: PLATFORM,
    description: 'a cached per-corp access token is replaced this long before it expires (at most half its lifetime); a token the platform calls expired (40014, 42001) is replaced at once and the call retried once',
    unit: 'ms',
  })
  @IsOptional() @Type(() => Number) @IsInt() @Min(0)
  CHAT_PLATFORM_TOKEN_REFRESH_MARGIN_MS: number = 300_000;

  @ConfigVariable({
    group: PLATFORM,
    description: 'base of the QR code URLs the simulator gives contact ways and group ways',
    unit: 'url',
    defaultText: 'http://localhost:$PORT/api/chat-simulator/qr',
  })
  @IsOptional() @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'] })
  CHAT_SIMULATOR_QR_BASE_URL?: string;

  @ConfigVariable({
    group: CALLBACKS,
    description: 'platform event callbacks: largest difference between the signed `timestamp` and now, either way (ms); beyond → 401',
    unit: 'ms',
  })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1000)
  CHAT_CALLBACK_MAX_SKEW_MS: number = 300_000;

  @ConfigVariable({ group: CALLBACKS, description: 'platform event callbacks: largest request body (bytes); larger → 413', unit: 'bytes' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1024)
  CHAT_CALLBACK_MAX_BYTES: number = 1024 * 1024;

  @ConfigVariable({
    group: LISTS,
    description: 'a chat list\'s `totalElements` of at least `CHAT_LIST_COUNT_CACHE_MIN_ROWS` is reused for this long per filter (0: count every page); smaller totals are always exact',
    unit: 'ms',
  })
  @IsOptional() @Type(() => Number) @IsInt() @Min(0) @Max(600_000)
  CHAT_LIST_COUNT_CACHE_TTL_MS: number = 2_000;

  @ConfigVariable({ group: LISTS, description: 'smallest total that may be reused', unit: 'count' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(0)
  CHAT_LIST_COUNT_CACHE_MIN_ROWS: number = 10_000;

  @ConfigVariable({
    group: LISTS,
    description: 'how long the chat lists reuse a tenant\'s corp names (`corpName` filters and columns); changes through this process apply at once and an unseen name is always looked up, a rename or removal by another process shows after at most this long (0: read every request)',
    unit: 'ms',
  })
  @IsOptional() @Type(() => Number) @IsInt() @Min(0) @Max(60_000)
  CHAT_LIST_CORP_CACHE_TTL_MS: number = 5_000;

  @ConfigVariable({
    group: STAFF,
    description: 'most staff users one digital-staff bind request names (`bindChatStaffV1`, guide `bindDigitalStaff`), and most ids in the staff-user list\'s `workChatUserId` filter (400 above)',
    unit: 'count',
  })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  CHAT_STAFF_MAX_IDS: number = 200;

  @ConfigVariable({ group: STAFF, description: 'most weekly windows in one digital staff\'s service-time configuration (400 above)', unit: 'count' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  CHAT_SERVICE_TIME_MAX_WINDOWS: number = 70;

  @ConfigVariable({
    group: CONTACTS,
    description: 'most contact way ids one QR code refresh (`POST /api/{tenant}/v1/chat/contact/way/refresh`) takes, each one platform call (400 above; at most 1000)',
    unit: 'count',
  })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(1000)
  CHAT_CONTACT_WAY_REFRESH_MAX_IDS: number = 100;

  @ConfigVariable({ group: CONTACTS, description: 'most items of one `batchChangeState` request (400 above)', unit: 'count' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  CHAT_CONTACT_BATCH_MAX_ITEMS: number = 500;

  @ConfigVariable({
    group: CONTACTS,
    description: 'most external user ids of one `byExternalUserIds` lookup and most states of one `byLastStates` query (400 above)',
    unit: 'count',
  })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  CHAT_CONTACT_LOOKUP_MAX_IDS: number = 200;

  @ConfigVariable({
    group: CONTACTS,
    description: 'largest named customer profile, bytes of its JSON (`POST …/v1/customers/profiles/{name}`, partner info; 413 above)',
    unit: 'bytes',
  })
  @IsOptional() @Type(() => Number) @IsInt() @Min(256)
  CHAT_CUSTOMER_PROFILE_MAX_BYTES: number = 65_536;

  @ConfigVariable({
    group: CONTACTS,
    description: 'largest `limit` of the deprecated group-member dedup (400 above; its default is 100, or this when lower)',
    unit: 'count',
  })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  CHAT_GROUP_MEMBER_DEDUP_MAX_LIMIT: number = 1000;

  @ConfigVariable({
    group: CONTACTS,
    description: 'most customers or group chats one guide `syncCustomer` / `syncGroup` pulls (`truncated: true` beyond)',
    unit: 'count',
  })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  CHAT_SYNC_MAX_ITEMS: number = 10_000;

  @ConfigVariable({
    group: CONTACTS,
    description: 'page size asked of the platform\'s cursor-paged customer and group chat lists during a sync (1..100)',
    unit: 'count',
  })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(100)
  CHAT_SYNC_PAGE_SIZE: number = 100;

  @ConfigVariable({ group: CONTACTS, description: 'most conditions in one contact view\'s filter (400 above)', unit: 'count' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  CHAT_CONTACT_VIEW_MAX_CONDITIONS: number = 30;

  @ConfigVariable({ group: CONTACTS, description: 'most contact views one owner (token subject) may have (409 above)', unit: 'count' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  CHAT_CONTACT_VIEW_MAX_PER_OWNER: number = 100;

  @ConfigVariable({
    group: DIAGNOSIS,
    description: 'how long the diagnosis (`POST /api/{tenant}/console/workChat/diagnose`) waits for the platform to accept a corp\'s credentials before its `platformReachable` check fails (50..60000)',
    unit: 'ms',
  })
  @IsOptional() @Type(() => Number) @IsInt() @Min(50) @Max(60_000)
  CHAT_DIAGNOSIS_PLATFORM_TIMEOUT_MS: number = 3000;

  @ConfigVariable({ group: RULES, description: 'most human-intervention rules, and most keyword tag rules, per tenant (409 above)', unit: 'count' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  CHAT_RULE_MAX_PER_TENANT: number = 500;

  @ConfigVariable({
    group: RULES,
    description: 'most patterns of one intervention rule (and digital staff ids of its scope), most keywords and tag names / ids (each) of one tag rule (400 above; 1..10000)',
    unit: 'count',
  })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(10_000)
  CHAT_RULE_MAX_PATTERNS: number = 100;

  @ConfigVariable({
    group: RULES,
    description: 'longest keyword, regular expression, intent name or tag name of a rule, characters (400 above)',
    unit: 'count',
  })
  @IsOptional() @Type(() => Number) @IsInt() @Min(8) @Max(10_000)
  CHAT_RULE_MAX_PATTERN_LENGTH: number = 200;

  @ConfigVariable({
    group: RULES,
    description: 'only this many characters of a message are looked at by the rules (regexes run on RE2, in time linear in this)',
    unit: 'chars',
  })
  @IsOptional() @Type(() => Number) @IsInt() @Min(100) @Max(100_000)
  CHAT_RULE_MATCH_MAX_CHARS: number = 2000;

  @ConfigVariable({
    group: TOOLS,
    description: '`true` lets tool API calls reach loopback, private (RFC 1918, CGNAT, ULA) and other non-public addresses (for on-premises tools and tests); cloud metadata, link-local, unspecified, multicast and broadcast addresses and this server\'s own and its database\'s ports stay refused',
    unit: 'flag',
  })
  @IsOptional() @IsIn(['true', 'false'])
  CHAT_TOOL_ALLOW_PRIVATE_NETWORKS: 'true' | 'false' = 'false';

  @ConfigVariable({ group: TOOLS, description: 'most tool API providers per tenant (409 above)', unit: 'count' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  CHAT_TOOL_MAX_PROVIDERS: number = 100;

  @ConfigVariable({ group: TOOLS, description: 'most operations of one provider (400 above)', unit: 'count' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(1000)
  CHAT_TOOL_MAX_OPERATIONS: number = 50;

  @ConfigVariable({ group: TOOLS, description: 'largest input JSON Schema of one operation, bytes of its JSON (413 above)', unit: 'bytes' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(256)
  CHAT_TOOL_MAX_SCHEMA_BYTES: number = 65_536;

  @ConfigVariable({ group: TOOLS, description: 'timeout of a provider that names none (must not exceed `CHAT_TOOL_MAX_TIMEOUT_MS`)', unit: 'ms' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(10)
  CHAT_TOOL_DEFAULT_TIMEOUT_MS: number = 10_000;

  @ConfigVariable({
    group: TOOLS,
    description: 'longest timeout a provider may ask for (400 above); one timeout covers DNS, connection, redirects and reading the reply',
    unit: 'ms',
  })
  @IsOptional() @Type(() => Number) @IsInt() @Min(10) @Max(600_000)
  CHAT_TOOL_MAX_TIMEOUT_MS: number = 30_000;

  @ConfigVariable({ group: TOOLS, description: 'largest JSON body (the call\'s arguments) of one tool call', unit: 'bytes' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(256)
  CHAT_TOOL_MAX_REQUEST_BYTES: number = 65_536;

  @ConfigVariable({ group: TOOLS, description: 'largest reply of one tool call (the call fails above)', unit: 'bytes' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(256)
  CHAT_TOOL_MAX_RESPONSE_BYTES: number = 1_048_576;

  @ConfigVariable({ group: TOOLS, description: 'most redirects one tool call follows, each target checked like the first (0..20)', unit: 'count' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(0) @Max(20)
  CHAT_TOOL_MAX_REDIRECTS: number = 3;

  @ConfigVariable({
    group: VARIABLES,
    description: 'most variable scopes per tenant (`POST /api/{tenant}/console/variableScopes` → 409 above)',
    unit: 'count',
  })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  CHAT_VARIABLE_MAX_SCOPES: number = 200;

  @ConfigVariable({ group: VARIABLES, description: 'most variable definitions per scope (409 above)', unit: 'count' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  CHAT_VARIABLE_MAX_DEFINITIONS: number = 200;

  @ConfigVariable({ group: VARIABLES, description: 'most options of an `enum` variable (400 above)', unit: 'count' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  CHAT_VARIABLE_MAX_ENUM_OPTIONS: number = 100;

  @ConfigVariable({ group: VARIABLES, description: 'largest variable value or default, bytes of its JSON (413 above)', unit: 'bytes' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(64)
  CHAT_VARIABLE_VALUE_MAX_BYTES: number = 16_384;

  @ConfigVariable({
    group: VARIABLES,
    description: 'most values one `GET /api/{tenant}/console/variables` returns (its `limit`, default this; 400 above)',
    unit: 'count',
  })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  CHAT_VARIABLE_LIST_MAX: number = 1000;

  @ConfigVariable({ group: SCRIPTS, description: 'most script categories per tenant (409 above)', unit: 'count' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  CHAT_SCRIPT_MAX_CATEGORIES: number = 1000;

  @ConfigVariable({
    group: SCRIPTS,
    description: 'deepest script category tree, a root being level 1 (creates and moves → 409 above; 1..50)',
    unit: 'count',
  })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(50)
  CHAT_SCRIPT_CATEGORY_MAX_DEPTH: number = 8;

  @ConfigVariable({ group: SCRIPTS, description: 'longest script text, characters (413 above)', unit: 'chars' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(100)
  CHAT_SCRIPT_CONTENT_MAX_CHARS: number = 20_000;

  @ConfigVariable({ group: SCRIPTS, description: 'most attachments, and most keywords and tags (each), of one script (400 above)', unit: 'count' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  CHAT_SCRIPT_MAX_ITEMS: number = 50;

  @ConfigVariable({
    group: SCRIPTS,
    description: 'most results of one script search (`GET /api/{tenant}/console/chat/script-content/search`, `ScriptsService.search`; 400 above; default 10)',
    unit: 'count',
  })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  CHAT_SCRIPT_SEARCH_MAX_RESULTS: number = 50;

  @ConfigVariable({ group: SCRIPTS, description: 'most candidate scripts a search reads (most recently updated first) before ranking', unit: 'count' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  CHAT_SCRIPT_SEARCH_CANDIDATES: number = 500;

  @ConfigVariable({
    group: CHANNELS,
    description: 'most triggers one conversation group may have (`POST /api/{tenant}/console/conversationGroups/{groupId}/triggers` → 409 above)',
    unit: 'count',
  })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  CHAT_CONVERSATION_GROUP_MAX_TRIGGERS: number = 50;

  @ConfigVariable({ group: CHANNELS, description: 'most event definitions one conversation group may have (409 above)', unit: 'count' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  CHAT_CONVERSATION_GROUP_MAX_EVENT_DEFINITIONS: number = 50;

  @ConfigVariable({ group: CHANNELS, description: 'most allowed origins of one web-widget channel (400 above)', unit: 'count' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  CHAT_CHANNEL_MAX_ALLOWED_ORIGINS: number = 20;

  @ConfigVariable({ group: CHANNELS, description: 'most member staff users of one chat group (400 above)', unit: 'count' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  CHAT_GROUP_MAX_MEMBERS: number = 200;

  @ConfigVariable({ group: CHANNELS, description: 'most channels one chat group handles (400 above)', unit: 'count' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  CHAT_GROUP_MAX_CHANNELS: number = 50;

  @ConfigVariable({ group: MESSAGES, description: 'largest image attachment of a sent message, bytes (413 above)', unit: 'bytes' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  CHAT_MESSAGE_MAX_IMAGE_BYTES: number = 10 * 1024 * 1024;

  @ConfigVariable({ group: MESSAGES, description: 'largest video attachment, bytes (413 above)', unit: 'bytes' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  CHAT_MESSAGE_MAX_VIDEO_BYTES: number = 10 * 1024 * 1024;

  @ConfigVariable({ group: MESSAGES, description: 'largest file attachment, bytes (413 above)', unit: 'bytes' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  CHAT_MESSAGE_MAX_FILE_BYTES: number = 20 * 1024 * 1024;

  @ConfigVariable({ group: MESSAGES, description: 'largest GIF (`emotion`) attachment, bytes (413 above)', unit: 'bytes' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  CHAT_MESSAGE_MAX_EMOTION_BYTES: number = 10 * 1024 * 1024;

  @ConfigVariable({ group: MESSAGES, description: 'longest text message, characters (400 above)', unit: 'chars' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  CHAT_MESSAGE_MAX_TEXT_CHARS: number = 4000;

  @ConfigVariable({
    group: MCP,
    description: 'most tag ids and names of one tool-style tag add/delete request (REST and MCP), 1..200 (400 above)',
    unit: 'count',
  })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(200)
  CHAT_MCP_MAX_TAGS: number = 20;

  @ConfigVariable({
    group: MCP,
    description: 'origins (`https://app.example`) whose browser pages may call the MCP endpoint; a request with another `Origin` gets 403, one without `Origin` (a non-browser client) is served',
    unit: 'list',
    defaultText: 'none',
  })
  @IsOptional() @Transform(toList) @Matches(/^https?:\/\/[^/\s]+$/, { each: true, message: 'each of CHAT_MCP_ALLOWED_ORIGINS must be an origin such as https://app.example (scheme, host, optional port; no path)' })
  CHAT_MCP_ALLOWED_ORIGINS: string[] = [];

  @ConfigVariable({
    group: MODEL,
    description: 'the chat wing\'s default model: OpenAI-compatible base URL (unset: optimize answers 400)',
    unit: 'url',
  })
  @IsOptional() @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'] })
  CHAT_LLM_BASE_URL?: string;

  @ConfigVariable({ group: MODEL, description: 'the chat wing\'s default model name', unit: 'text' })
  @IsOptional() @IsString()
  CHAT_LLM_MODEL?: string;

  @ConfigVariable({ group: MODEL, description: 'API key of the chat wing\'s default model, never returned or logged', unit: 'text', secret: true })
  @IsOptional() @IsString()
  CHAT_LLM_API_KEY?: string;

  @ConfigVariable({ group: MODEL, description: 'time limit of one model call, ms', unit: 'ms' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  CHAT_LLM_TIMEOUT_MS: number = 60_000;

  @ConfigVariable({
    group: AI_REPLIES,
    description: 'AI replies: latest messages of the contact in the prompt when its conversation group sets none (1..500)',
    unit: 'count',
  })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(500)
  CHAT_AI_REPLY_HISTORY_MESSAGES: number = 20;

  @ConfigVariable({ group: AI_REPLIES, description: 'AI replies: most characters of history in the prompt (oldest dropped first)', unit: 'chars' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(100)
  CHAT_AI_REPLY_HISTORY_MAX_CHARS: number = 16_000;

  @ConfigVariable({
    group: AI_REPLIES,
    description: 'AI replies: most scripts offered to the model (also capped by `CHAT_SCRIPT_SEARCH_MAX_RESULTS`)',
    unit: 'count',
  })
  @IsOptional() @Type(() => Number) @IsInt() @Min(0) @Max(50)
  CHAT_AI_REPLY_MAX_SCRIPTS: number = 5;

  @ConfigVariable({ group: AI_REPLIES, description: 'AI replies: most characters of script text in the prompt, all scripts together', unit: 'chars' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(0)
  CHAT_AI_REPLY_SCRIPT_MAX_CHARS: number = 8000;

  @ConfigVariable({
    group: AI_REPLIES,
    description: 'AI replies: most model rounds that call tools (provider operations, `report_customer_intent`); then the model must answer in text',
    unit: 'count',
  })
  @IsOptional() @Type(() => Number) @IsInt() @Min(0) @Max(20)
  CHAT_AI_REPLY_MAX_TOOL_ROUNDS: number = 4;

  @ConfigVariable({ group: AI_REPLIES, description: 'AI replies: most characters of one tool result given back to the model', unit: 'chars' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(100)
  CHAT_AI_REPLY_TOOL_RESULT_MAX_CHARS: number = 8000;

  @ConfigVariable({
    group: PIPELINE,
    description: 'inbound pipeline: compose attempts of one AI reply (the first and the retries after a model failure, 1..20)',
    unit: 'count',
  })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(20)
  CHAT_AI_REPLY_ATTEMPTS: number = 3;

  @ConfigVariable({
    group: PIPELINE,
    description: 'inbound pipeline: delay before the second attempt, doubled for each further one (capped at 10 min), ms',
    unit: 'ms',
  })
  @IsOptional() @Type(() => Number) @IsInt() @Min(0) @Max(600_000)
  CHAT_AI_REPLY_RETRY_DELAY_MS: number = 2000;

  @ConfigVariable({
    group: PIPELINE,
    description: 'inbound pipeline: time limit of one compose attempt (all model rounds and tool calls), ms',
    unit: 'ms',
  })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1000)
  CHAT_AI_REPLY_TIMEOUT_MS: number = 120_000;

  @ConfigVariable({ group: PIPELINE, description: 'inbound pipeline: how often a composing reply renews its lease, ms', unit: 'ms' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(50)
  CHAT_AI_REPLY_HEARTBEAT_MS: number = 5000;

  @ConfigVariable({
    group: PIPELINE,
    description: 'inbound pipeline: an open reply whose lease is this old is re-queued by the sweep (killed process, lost job), ms; more than twice the heartbeat',
    unit: 'ms',
  })
  @IsOptional() @Type(() => Number) @IsInt() @Min(200)
  CHAT_AI_REPLY_STALE_MS: number = 60_000;

  @ConfigVariable({ group: PIPELINE, description: 'inbound pipeline: interval of the sweep (it also runs at start-up), ms', unit: 'ms' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(50)
  CHAT_AI_REPLY_SWEEP_INTERVAL_MS: number = 10_000;

  @ConfigVariable({
    group: ENT_ROBOT,
    description: 'longest enterprise robot text message in UTF-8 bytes (`POST /api/{tenant}/v1/entrobot/message/sendMsg` → 413 above)',
    unit: 'bytes',
  })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  CHAT_ENT_ROBOT_TEXT_MAX_BYTES: number = 2048;

  @ConfigVariable({ group: ENT_ROBOT, description: 'longest enterprise robot markdown message in UTF-8 bytes (413 above)', unit: 'bytes' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  CHAT_ENT_ROBOT_MARKDOWN_MAX_BYTES: number = 4096;

  @ConfigVariable({ group: ENT_ROBOT, description: 'most mentions (user ids plus mobiles) in one robot text message (400 above)', unit: 'count' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(0)
  CHAT_ENT_ROBOT_MAX_MENTIONS: number = 100;
}

/** Cross-variable rules of the chat wing; each line is `NAME: problem`. */
function checkChat(vars: ChatVariables): string[] {
  const problems: string[] = [];
  if (vars.CHAT_TOOL_DEFAULT_TIMEOUT_MS > vars.CHAT_TOOL_MAX_TIMEOUT_MS) problems.push('CHAT_TOOL_DEFAULT_TIMEOUT_MS: must not exceed CHAT_TOOL_MAX_TIMEOUT_MS');
  if (vars.CHAT_AI_REPLY_STALE_MS <= 2 * vars.CHAT_AI_REPLY_HEARTBEAT_MS) problems.push('CHAT_AI_REPLY_STALE_MS: must be more than twice CHAT_AI_REPLY_HEARTBEAT_MS');
  if (vars.CHAT_PLATFORM_MODE === 'http' && !vars.CHAT_PLATFORM_BASE_URL) problems.push('CHAT_PLATFORM_BASE_URL: required when CHAT_PLATFORM_MODE is http');
  if (vars.CHAT_OAUTH_ALGORITHMS.length === 0) problems.push('CHAT_OAUTH_ALGORITHMS: name at least one algorithm');
  else if (!vars.CHAT_OAUTH_ISSUER && !vars.CHAT_OAUTH_ALGORITHMS.includes('ES256')) {
    problems.push('CHAT_OAUTH_ALGORITHMS: must include ES256, which the built-in authorization server signs with (CHAT_OAUTH_ISSUER is unset)');
  }
  try {
    compileTrustedProxies(vars.CHAT_OAUTH_TRUSTED_PROXIES);
  } catch (error) {
    problems.push(`CHAT_OAUTH_TRUSTED_PROXIES: ${(error as Error).message}`);
  }
  if (!vars.CHAT_OAUTH_ISSUER && (vars.CHAT_OAUTH_JWKS_URL || vars.CHAT_OAUTH_TOKEN_URL)) {
    problems.push('CHAT_OAUTH_JWKS_URL, CHAT_OAUTH_TOKEN_URL: only apply with an external issuer (set CHAT_OAUTH_ISSUER)');
  }
  return problems;
}

/**
 * Chat wing OAuth2: the app verifies bearer JWTs as a resource server; with `issuer` undefined it also runs the
 * built-in authorization server (issuer `${publicUrl}/oauth`). Durations in seconds unless named *Ms.
 */
export interface ChatAuthConfig {
  /** Without a trailing slash. */
  publicUrl: string;
  /** External issuer; undefined = the built-in authorization server. */
  issuer?: string;
  audience: string;
  /** External issuer only; undefined = from its discovery document. */
  jwksUrl?: string;
  /** External issuer only; undefined = from its discovery document. */
  tokenUrl?: string;
  tenantClaim: string;
  algorithms: string[];
  clockToleranceS: number;
  tokenTtlS: number;
  httpTimeoutMs: number;
  /** Verified access tokens remembered per process (0: none). */
  tokenCacheMaxEntries: number;
  /** How long a tenant's status is reused by the auth check, ms (0: read every time). */
  tenantCacheTtlMs: number;
  /** Built-in server: peers whose forwarded headers are believed (IPs, CIDRs, `loopback`); empty: none. */
  trustedProxies: string[];
}

/** The chat platform port (src/chat/platform): adapter, HTTP adapter limits (ms) and simulator settings. */
export interface ChatPlatformConfig {
  mode: ChatPlatformMode;
  /** Without a trailing slash; set when mode is http. */
  baseUrl?: string;
  timeoutMs: number;
  retries: number;
  retryBaseDelayMs: number;
  retryMaxDelayMs: number;
  tokenRefreshMarginMs: number;
  /** Without a trailing slash. */
  simulatorQrBaseUrl: string;
}

/** The chat wing's default model (src/llm): unset base URL or model = none configured; timeout ms; the key is a secret. */
export interface ChatLlmConfig {
  baseUrl?: string;
  model?: string;
  /** Secret: never logged or returned. */
  apiKey?: string;
  timeoutMs: number;
}

/** Drops trailing slashes so paths can be appended with `/`. */
const withoutTrailingSlash = (url: string) => url.replace(/\/+$/, '');

/** The chat wing's slices of AppConfig (`chat*`), one per area; counts unless the name says ms, S (seconds), bytes or chars. */
export const chatConfig = declareConfig({
  wing: 'chat',
  variables: ChatVariables,
  check: checkChat,
  resolve: (vars, base) => ({
    chatAuth: typedSlice<ChatAuthConfig>({
      publicUrl: withoutTrailingSlash(vars.CHAT_PUBLIC_URL ?? `http://localhost:${base.port}`),
      issuer: vars.CHAT_OAUTH_ISSUER,
      audience: vars.CHAT_OAUTH_AUDIENCE,
      jwksUrl: vars.CHAT_OAUTH_JWKS_URL,
      tokenUrl: vars.CHAT_OAUTH_TOKEN_URL,
      tenantClaim: vars.CHAT_OAUTH_TENANT_CLAIM,
      algorithms: [...new Set(vars.CHAT_OAUTH_ALGORITHMS)],
      clockToleranceS: vars.CHAT_OAUTH_CLOCK_TOLERANCE_S,
      tokenTtlS: vars.CHAT_OAUTH_TOKEN_TTL_S,
      httpTimeoutMs: vars.CHAT_OAUTH_HTTP_TIMEOUT_MS,
      tokenCacheMaxEntries: vars.CHAT_AUTH_TOKEN_CACHE_MAX_ENTRIES,
      tenantCacheTtlMs: vars.CHAT_AUTH_TENANT_CACHE_TTL_MS,
      trustedProxies: vars.CHAT_OAUTH_TRUSTED_PROXIES,
    }),
    /** Chat lists (src/chat/common/list-pager.ts, src/chat/corps/corp-directory.ts): reuse of big totals and corp names, ms and rows. */
    chatLists: { countCacheTtlMs: vars.CHAT_LIST_COUNT_CACHE_TTL_MS, countCacheMinRows: vars.CHAT_LIST_COUNT_CACHE_MIN_ROWS, corpCacheTtlMs: vars.CHAT_LIST_CORP_CACHE_TTL_MS },
    chatPlatform: typedSlice<ChatPlatformConfig>({
      mode: vars.CHAT_PLATFORM_MODE,
      baseUrl: vars.CHAT_PLATFORM_BASE_URL === undefined ? undefined : withoutTrailingSlash(vars.CHAT_PLATFORM_BASE_URL),
      timeoutMs: vars.CHAT_PLATFORM_HTTP_TIMEOUT_MS,
      retries: vars.CHAT_PLATFORM_HTTP_RETRIES,
      retryBaseDelayMs: vars.CHAT_PLATFORM_HTTP_RETRY_BASE_DELAY_MS,
      retryMaxDelayMs: vars.CHAT_PLATFORM_HTTP_RETRY_MAX_DELAY_MS,
      tokenRefreshMarginMs: vars.CHAT_PLATFORM_TOKEN_REFRESH_MARGIN_MS,
      simulatorQrBaseUrl: withoutTrailingSlash(vars.CHAT_SIMULATOR_QR_BASE_URL ?? `http://localhost:${base.port}/api/chat-simulator/qr`),
    }),
    /** Platform event callbacks (src/chat/platform/callback): timestamp skew accepted (ms), largest body (bytes). */
    chatCallback: { maxSkewMs: vars.CHAT_CALLBACK_MAX_SKEW_MS, maxBytes: vars.CHAT_CALLBACK_MAX_BYTES },
    /** Chat staff users and digital staff (src/chat/staff-users, src/chat/digital-staff): request limits (counts). */
    chatStaff: { maxIds: vars.CHAT_STAFF_MAX_IDS, maxServiceTimeWindows: vars.CHAT_SERVICE_TIME_MAX_WINDOWS },
    /** Chat contact ways (src/chat/contact-ways): most ids of one QR code refresh request. */
    chatContactWays: { refreshMaxIds: vars.CHAT_CONTACT_WAY_REFRESH_MAX_IDS },
    /** Chat contacts and group rooms (src/chat/contacts, src/chat/group-rooms): request limits (counts, bytes). */
    chatContacts: {
      batchMaxItems: vars.CHAT_CONTACT_BATCH_MAX_ITEMS,
      lookupMaxIds: vars.CHAT_CONTACT_LOOKUP_MAX_IDS,
      profileMaxBytes: vars.CHAT_CUSTOMER_PROFILE_MAX_BYTES,
      dedupMaxLimit: vars.CHAT_GROUP_MEMBER_DEDUP_MAX_LIMIT,
      syncMaxItems: vars.CHAT_SYNC_MAX_ITEMS,
      syncPageSize: vars.CHAT_SYNC_PAGE_SIZE,
    },
    /** Chat one-click diagnosis (src/chat/diagnosis): time limit of the platform probe, ms. */
    chatDiagnosis: { platformTimeoutMs: vars.CHAT_DIAGNOSIS_PLATFORM_TIMEOUT_MS },
    /**
     * Chat human-intervention and keyword tag rules (src/chat/intervention-rules, src/chat/tag-rules): counts, pattern
     * length and matched text (characters).
     */
    chatRules: {
      maxPerTenant: vars.CHAT_RULE_MAX_PER_TENANT,
      maxPatterns: vars.CHAT_RULE_MAX_PATTERNS,
      maxPatternLength: vars.CHAT_RULE_MAX_PATTERN_LENGTH,
      matchMaxChars: vars.CHAT_RULE_MATCH_MAX_CHARS,
    },
    /** Chat tool API providers (src/chat/tool-providers): network policy, counts, sizes (bytes), timeouts (ms). */
    chatTools: {
      allowPrivateNetworks: vars.CHAT_TOOL_ALLOW_PRIVATE_NETWORKS === 'true',
      maxProviders: vars.CHAT_TOOL_MAX_PROVIDERS,
      maxOperations: vars.CHAT_TOOL_MAX_OPERATIONS,
      maxSchemaBytes: vars.CHAT_TOOL_MAX_SCHEMA_BYTES,
      defaultTimeoutMs: vars.CHAT_TOOL_DEFAULT_TIMEOUT_MS,
      maxTimeoutMs: vars.CHAT_TOOL_MAX_TIMEOUT_MS,
      maxRequestBytes: vars.CHAT_TOOL_MAX_REQUEST_BYTES,
      maxResponseBytes: vars.CHAT_TOOL_MAX_RESPONSE_BYTES,
      maxRedirects: vars.CHAT_TOOL_MAX_REDIRECTS,
    },
    /** Chat variables (src/chat/variables): counts per tenant / scope / enum, value size (bytes), list cap. */
    chatVariables: {
      maxScopes: vars.CHAT_VARIABLE_MAX_SCOPES,
      maxDefinitions: vars.CHAT_VARIABLE_MAX_DEFINITIONS,
      maxEnumOptions: vars.CHAT_VARIABLE_MAX_ENUM_OPTIONS,
      valueMaxBytes: vars.CHAT_VARIABLE_VALUE_MAX_BYTES,
      listMax: vars.CHAT_VARIABLE_LIST_MAX,
    },
    /** Chat scripts (src/chat/scripts): tree size and depth, text size (chars), items per script, search caps. */
    chatScripts: {
      maxCategories: vars.CHAT_SCRIPT_MAX_CATEGORIES,
      maxDepth: vars.CHAT_SCRIPT_CATEGORY_MAX_DEPTH,
      contentMaxChars: vars.CHAT_SCRIPT_CONTENT_MAX_CHARS,
      maxItems: vars.CHAT_SCRIPT_MAX_ITEMS,
      searchMaxResults: vars.CHAT_SCRIPT_SEARCH_MAX_RESULTS,
      searchCandidates: vars.CHAT_SCRIPT_SEARCH_CANDIDATES,
    },
    /** Chat contact views (src/chat/contact-views): filter conditions per view, views per owner. */
    chatContactViews: { maxConditions: vars.CHAT_CONTACT_VIEW_MAX_CONDITIONS, maxPerOwner: vars.CHAT_CONTACT_VIEW_MAX_PER_OWNER },
    /** Chat conversation groups, triggers and event definitions (src/chat/conversation-groups): counts per group. */
    chatConversations: { maxTriggersPerGroup: vars.CHAT_CONVERSATION_GROUP_MAX_TRIGGERS, maxEventDefinitionsPerGroup: vars.CHAT_CONVERSATION_GROUP_MAX_EVENT_DEFINITIONS },
    /** Chat channels and chat groups (src/chat/channels, src/chat/chat-groups): counts per channel / group. */
    chatChannels: { maxAllowedOrigins: vars.CHAT_CHANNEL_MAX_ALLOWED_ORIGINS, maxGroupMembers: vars.CHAT_GROUP_MAX_MEMBERS, maxGroupChannels: vars.CHAT_GROUP_MAX_CHANNELS },
    /** Chat messages (src/chat/messages): attachment size limits per message type (bytes), text length (chars). */
    chatMessages: {
      maxBytes: { image: vars.CHAT_MESSAGE_MAX_IMAGE_BYTES, video: vars.CHAT_MESSAGE_MAX_VIDEO_BYTES, file: vars.CHAT_MESSAGE_MAX_FILE_BYTES, emotion: vars.CHAT_MESSAGE_MAX_EMOTION_BYTES },
      maxTextChars: vars.CHAT_MESSAGE_MAX_TEXT_CHARS,
    },
    /** Tool-style endpoints and MCP tools (src/chat/mcp): most tags of one tag request (count), browser origins allowed at the MCP endpoint. */
    chatMcp: { maxTags: vars.CHAT_MCP_MAX_TAGS, allowedOrigins: vars.CHAT_MCP_ALLOWED_ORIGINS },
    chatLlm: typedSlice<ChatLlmConfig>({ baseUrl: vars.CHAT_LLM_BASE_URL, model: vars.CHAT_LLM_MODEL, apiKey: vars.CHAT_LLM_API_KEY, timeoutMs: vars.CHAT_LLM_TIMEOUT_MS }),
    /** AI replies (src/chat/ai-reply): history (messages, chars), scripts (count, chars), tool rounds, tool result size (chars). */
    chatAiReply: {
      historyMessages: vars.CHAT_AI_REPLY_HISTORY_MESSAGES,
      historyMaxChars: vars.CHAT_AI_REPLY_HISTORY_MAX_CHARS,
      maxScripts: vars.CHAT_AI_REPLY_MAX_SCRIPTS,
      scriptMaxChars: vars.CHAT_AI_REPLY_SCRIPT_MAX_CHARS,
      maxToolRounds: vars.CHAT_AI_REPLY_MAX_TOOL_ROUNDS,
      toolResultMaxChars: vars.CHAT_AI_REPLY_TOOL_RESULT_MAX_CHARS,
    },
    /** The inbound AI reply pipeline (src/chat/pipeline): compose attempts, retry delay, compose time limit, lease heartbeat / stale age and sweep interval (ms). */
    chatPipeline: {
      attempts: vars.CHAT_AI_REPLY_ATTEMPTS,
      retryDelayMs: vars.CHAT_AI_REPLY_RETRY_DELAY_MS,
      timeoutMs: vars.CHAT_AI_REPLY_TIMEOUT_MS,
      heartbeatMs: vars.CHAT_AI_REPLY_HEARTBEAT_MS,
      staleMs: vars.CHAT_AI_REPLY_STALE_MS,
      sweepIntervalMs: vars.CHAT_AI_REPLY_SWEEP_INTERVAL_MS,
    },
    /** Chat enterprise robot (src/chat/ent-robot): message limits (bytes are UTF-8 bytes). */
    chatEntRobot: { textMaxBytes: vars.CHAT_ENT_ROBOT_TEXT_MAX_BYTES, markdownMaxBytes: vars.CHAT_ENT_ROBOT_MARKDOWN_MAX_BYTES, maxMentions: vars.CHAT_ENT_ROBOT_MAX_MENTIONS },
  }),
});

/** The chat wing's resolved values (every `chat*` slice). */
export type ChatConfig = ReturnType<typeof chatConfig.resolve>;

declare module '../config/app-config' {
  /** The chat wing's slices: `chatAuth`, `chatPlatform`, … (see {@link chatConfig}). */
  interface AppConfig extends ChatConfig {}
}
