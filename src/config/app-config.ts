import { plainToInstance, Transform, Type } from 'class-transformer';
import {
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  Max,
  Min,
  MinLength,
  validateSync,
} from 'class-validator';
import { isAbsolute, resolve } from 'node:path';
import type { ExplorationBudget } from '../evaluation/campaigns/exploration-budget';
import { CHAT_PLATFORM_MODES, type ChatPlatformMode } from '../chat/platform/chat-platform.port';

/** Permissions an agent token may carry (deployment-gateway.md, Resources: Token). */
export const DEPLOY_PERMISSIONS = ['deploy', 'exec', 'list', 'delete'] as const;
export type DeployPermission = (typeof DEPLOY_PERMISSIONS)[number];

/** Signing algorithms the chat wing may accept on OAuth2 access tokens: asymmetric only (never `none` or HS*). */
export const CHAT_OAUTH_ALGORITHM_CHOICES = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'] as const;

const toList = ({ value }: { value: unknown }) =>
  typeof value === 'string'
    ? value
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean)
    : value;

/**
 * The environment variables Atrium reads, each validated at start-up. Every one is listed with its default in
 * README.md (Configuration) and `.env.example`. Sizes are bytes, durations milliseconds.
 */
export class EnvironmentVariables {
  @IsOptional() @Type(() => Number) @IsInt() @Min(0) @Max(65535)
  PORT: number = 3000;

  @IsOptional() @IsString()
  HOST: string = '0.0.0.0';

  @IsOptional() @IsIn(['development', 'production', 'test'])
  NODE_ENV: string = 'development';

  @IsOptional() @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL: string = 'info';

  /** postgres://user:pass@host:port/db; unset = embedded PostgreSQL under DATA_DIR. */
  @IsOptional() @Matches(/^postgres(ql)?:\/\/\S+$/, { message: 'DATABASE_URL must be a postgres:// URL' })
  DATABASE_URL?: string;

  @IsOptional() @IsString()
  DATA_DIR: string = './.data';

  /** Root folder of the local file storage adapter (stored blobs: evaluation files, later chat attachments); default $DATA_DIR/files. */
  @IsOptional() @IsString()
  STORAGE_DIR?: string;

  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(65535)
  EMBEDDED_POSTGRES_PORT: number = 54329;

  @IsOptional() @Type(() => Number) @IsInt() @Min(0)
  SHUTDOWN_GRACE_MS: number = 10_000;

  /** Largest JSON request body in bytes (scenarios with tens of thousands of cases are several MB). */
  @IsOptional() @Type(() => Number) @IsInt() @Min(1024)
  HTTP_JSON_BODY_LIMIT_BYTES: number = 16 * 1024 * 1024;

  /** Chat platform adapter: the built-in simulator (platform state in chat_sim_* tables) or the HTTP server API. */
  @IsOptional() @IsIn(CHAT_PLATFORM_MODES)
  CHAT_PLATFORM_MODE: ChatPlatformMode = 'simulator';

  /** Base URL of the chat platform's server API (`/cgi-bin/...` is appended); required when CHAT_PLATFORM_MODE=http. */
  @IsOptional() @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'] })
  CHAT_PLATFORM_BASE_URL?: string;

  /** Timeout of one HTTP request to the chat platform (reading the reply included), ms. */
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  CHAT_PLATFORM_HTTP_TIMEOUT_MS: number = 10_000;

  /** Retries of a chat platform call after a 5xx, busy errcode or network failure (0 = none). */
  @IsOptional() @Type(() => Number) @IsInt() @Min(0) @Max(10)
  CHAT_PLATFORM_HTTP_RETRIES: number = 2;

  /** Backoff before the first retry, ms; doubles per retry (with jitter). */
  @IsOptional() @Type(() => Number) @IsInt() @Min(0)
  CHAT_PLATFORM_HTTP_RETRY_BASE_DELAY_MS: number = 200;

  /** Longest backoff between retries, ms. */
  @IsOptional() @Type(() => Number) @IsInt() @Min(0)
  CHAT_PLATFORM_HTTP_RETRY_MAX_DELAY_MS: number = 5_000;

  /** A cached platform access token is replaced this long before it expires, ms (at most half its lifetime). */
  @IsOptional() @Type(() => Number) @IsInt() @Min(0)
  CHAT_PLATFORM_TOKEN_REFRESH_MARGIN_MS: number = 300_000;

  /** Platform event callbacks: largest difference between a callback's timestamp and now (either way), ms; beyond → 401. */
  @IsOptional() @Type(() => Number) @IsInt() @Min(1000)
  CHAT_CALLBACK_MAX_SKEW_MS: number = 300_000;

  /** Platform event callbacks: largest request body, bytes; larger → 413. */
  @IsOptional() @Type(() => Number) @IsInt() @Min(1024)
  CHAT_CALLBACK_MAX_BYTES: number = 1024 * 1024;

  /** Base of the QR code URLs the chat platform simulator hands out; default http://localhost:$PORT/api/chat-simulator/qr. */
  @IsOptional() @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'] })
  CHAT_SIMULATOR_QR_BASE_URL?: string;

  /** Chat staff: most staff users one bind request names, and most ids of the staff-user list's workChatUserId filter. */
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  CHAT_STAFF_MAX_IDS: number = 200;

  /** Chat digital staff: most windows of one service-time configuration. */
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  CHAT_SERVICE_TIME_MAX_WINDOWS: number = 70;

  /** Chat contact ways: most ids of one QR code refresh request (each is one platform call). */
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(1000)
  CHAT_CONTACT_WAY_REFRESH_MAX_IDS: number = 100;

  /** Chat contacts: most items of one batchChangeState request. */
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  CHAT_CONTACT_BATCH_MAX_ITEMS: number = 500;

  /** Chat contacts: most external user ids of a byExternalUserIds lookup, and most states of a byLastStates query. */
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  CHAT_CONTACT_LOOKUP_MAX_IDS: number = 200;

  /** Chat contacts: largest named customer profile (JSON text), bytes; larger → 413. */
  @IsOptional() @Type(() => Number) @IsInt() @Min(256)
  CHAT_CUSTOMER_PROFILE_MAX_BYTES: number = 65_536;

  /** Chat group rooms: most duplicate groups one dedup call may handle (its `limit` query, default 100). */
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  CHAT_GROUP_MEMBER_DEDUP_MAX_LIMIT: number = 1000;

  /** Chat guide sync: most customers or group chats one syncCustomer / syncGroup call pulls from the platform. */
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  CHAT_SYNC_MAX_ITEMS: number = 10_000;

  /** Chat guide sync: page size asked of the platform's cursor-paged lists (1..100). */
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(100)
  CHAT_SYNC_PAGE_SIZE: number = 100;

  /** Chat diagnosis: how long the platform-reachable check waits for the platform to accept a corp's credentials, ms. */
  @IsOptional() @Type(() => Number) @IsInt() @Min(50) @Max(60_000)
  CHAT_DIAGNOSIS_PLATFORM_TIMEOUT_MS: number = 3000;

  /** Chat rules: most intervention rules, and most tag rules, per tenant (409 above). */
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  CHAT_RULE_MAX_PER_TENANT: number = 500;

  /** Chat rules: most patterns of one intervention rule, and most keywords and tags (each) of one tag rule (400 above). */
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(10_000)
  CHAT_RULE_MAX_PATTERNS: number = 100;

  /** Chat rules: longest keyword, regular expression, intent name or tag of a rule, characters (400 above). */
  @IsOptional() @Type(() => Number) @IsInt() @Min(8) @Max(10_000)
  CHAT_RULE_MAX_PATTERN_LENGTH: number = 200;

  /** Chat rules: longest message text the rules look at (the rest is ignored), characters; also the length of the write-time regex probes. */
  @IsOptional() @Type(() => Number) @IsInt() @Min(100) @Max(100_000)
  CHAT_RULE_MATCH_MAX_CHARS: number = 2000;

  /** Chat rules: time limit of one regular-expression evaluation on a message (a stopped one counts as no match), ms. */
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(10_000)
  CHAT_RULE_REGEX_TIMEOUT_MS: number = 100;

  /** Chat rules: time limit of each write-time probe of a regular expression (a slower one is refused), ms. Larger than the match limit so that load on the server does not refuse a fine expression. */
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(60_000)
  CHAT_RULE_REGEX_PROBE_TIMEOUT_MS: number = 500;

  /** Chat tool providers: allow calls to loopback, private, link-local and metadata addresses ("true"/"false"). */
  @IsOptional() @IsIn(['true', 'false'])
  CHAT_TOOL_ALLOW_PRIVATE_NETWORKS: 'true' | 'false' = 'false';

  /** Chat tool providers: most providers per tenant (409 above). */
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  CHAT_TOOL_MAX_PROVIDERS: number = 100;

  /** Chat tool providers: most operations of one provider (400 above). */
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(1000)
  CHAT_TOOL_MAX_OPERATIONS: number = 50;

  /** Chat tool providers: largest input JSON Schema of one operation, bytes of its JSON text (413 above). */
  @IsOptional() @Type(() => Number) @IsInt() @Min(256)
  CHAT_TOOL_MAX_SCHEMA_BYTES: number = 65_536;

  /** Chat tool providers: timeout of a provider that names none, ms (must not exceed CHAT_TOOL_MAX_TIMEOUT_MS). */
  @IsOptional() @Type(() => Number) @IsInt() @Min(10)
  CHAT_TOOL_DEFAULT_TIMEOUT_MS: number = 10_000;

  /** Chat tool providers: longest timeout a provider may ask for, ms (400 above). */
  @IsOptional() @Type(() => Number) @IsInt() @Min(10) @Max(600_000)
  CHAT_TOOL_MAX_TIMEOUT_MS: number = 30_000;

  /** Chat tool providers: largest request body (the call's arguments as JSON) of one call, bytes. */
  @IsOptional() @Type(() => Number) @IsInt() @Min(256)
  CHAT_TOOL_MAX_REQUEST_BYTES: number = 65_536;

  /** Chat tool providers: largest reply body of one call, bytes (the call fails above). */
  @IsOptional() @Type(() => Number) @IsInt() @Min(256)
  CHAT_TOOL_MAX_RESPONSE_BYTES: number = 1_048_576;

  /** Chat tool providers: most redirects one call follows (each target checked like the first). */
  @IsOptional() @Type(() => Number) @IsInt() @Min(0) @Max(20)
  CHAT_TOOL_MAX_REDIRECTS: number = 3;

  /** Chat variables: most variable scopes per tenant (409 above). */
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  CHAT_VARIABLE_MAX_SCOPES: number = 200;

  /** Chat variables: most definitions per variable scope (409 above). */
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  CHAT_VARIABLE_MAX_DEFINITIONS: number = 200;

  /** Chat variables: most options of an enum variable (400 above). */
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  CHAT_VARIABLE_MAX_ENUM_OPTIONS: number = 100;

  /** Chat variables: largest value or default, bytes of its JSON text (413 above). */
  @IsOptional() @Type(() => Number) @IsInt() @Min(64)
  CHAT_VARIABLE_VALUE_MAX_BYTES: number = 16_384;

  /** Chat variables: most values one `GET {C}/variables` returns (its `limit` query, default this). */
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  CHAT_VARIABLE_LIST_MAX: number = 1000;

  /** Chat scripts: most script categories per tenant (409 above). */
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  CHAT_SCRIPT_MAX_CATEGORIES: number = 1000;

  /** Chat scripts: deepest category tree (a root is depth 1; 409 above). */
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(50)
  CHAT_SCRIPT_CATEGORY_MAX_DEPTH: number = 8;

  /** Chat scripts: longest script text, characters (413 above). */
  @IsOptional() @Type(() => Number) @IsInt() @Min(100)
  CHAT_SCRIPT_CONTENT_MAX_CHARS: number = 20_000;

  /** Chat scripts: most attachments, and most keywords and tags (each), of one script (400 above). */
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  CHAT_SCRIPT_MAX_ITEMS: number = 50;

  /** Chat scripts: most results of one script search (its `limit`, default 10). */
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  CHAT_SCRIPT_SEARCH_MAX_RESULTS: number = 50;

  /** Chat scripts: most candidate scripts a search reads from the database before ranking them. */
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  CHAT_SCRIPT_SEARCH_CANDIDATES: number = 500;

  /** Chat contact views: most conditions in one view's filter (400 above). */
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  CHAT_CONTACT_VIEW_MAX_CONDITIONS: number = 30;

  /** Chat contact views: most views one owner (token subject) may have (409 above). */
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  CHAT_CONTACT_VIEW_MAX_PER_OWNER: number = 100;

  /** Chat conversation groups: most triggers one conversation group may have. */
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  CHAT_CONVERSATION_GROUP_MAX_TRIGGERS: number = 50;

  /** Chat conversation groups: most event definitions one conversation group may have. */
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  CHAT_CONVERSATION_GROUP_MAX_EVENT_DEFINITIONS: number = 50;

  /** Chat channels: most allowed origins of one web-widget channel. */
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  CHAT_CHANNEL_MAX_ALLOWED_ORIGINS: number = 20;

  /** Chat groups: most member staff users of one chat group. */
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  CHAT_GROUP_MAX_MEMBERS: number = 200;

  /** Chat groups: most channels one chat group handles. */
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  CHAT_GROUP_MAX_CHANNELS: number = 50;

  /** Chat enterprise robot: longest text message, in UTF-8 bytes (the platform's limit is 2048). */
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  CHAT_ENT_ROBOT_TEXT_MAX_BYTES: number = 2048;

  /** Chat enterprise robot: longest markdown message, in UTF-8 bytes (the platform's limit is 4096). */
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  CHAT_ENT_ROBOT_MARKDOWN_MAX_BYTES: number = 4096;

  /** Chat enterprise robot: most mentions (user ids plus mobiles) in one text message. */
  @IsOptional() @Type(() => Number) @IsInt() @Min(0)
  CHAT_ENT_ROBOT_MAX_MENTIONS: number = 100;

  @IsOptional() @IsUrl({ require_tld: false, require_protocol: true })
  DEPLOY_PUBLIC_URL?: string;

  @IsOptional() @IsString() @MinLength(16, { message: 'DEPLOY_REGISTRATION_KEY must be at least 16 characters' })
  DEPLOY_REGISTRATION_KEY?: string;

  @IsOptional() @IsString() @MinLength(24, { message: 'DEPLOY_OWNER_TOKEN must be at least 24 characters' })
  DEPLOY_OWNER_TOKEN?: string;

  @IsOptional() @Transform(toList) @IsIn(DEPLOY_PERMISSIONS, { each: true })
  DEPLOY_DEFAULT_PERMISSIONS: DeployPermission[] = [...DEPLOY_PERMISSIONS];

  @IsOptional() @IsString()
  DEPLOY_SITES_DIR?: string;

  @IsOptional() @Transform(toList) @IsString({ each: true })
  DEPLOY_ALLOWED_DIRS?: string[];

  @IsOptional() @Type(() => Number) @IsInt() @Min(1024)
  DEPLOY_MAX_ARCHIVE_BYTES: number = 100 * 1024 * 1024;

  @IsOptional() @Type(() => Number) @IsInt() @Min(1024)
  DEPLOY_MAX_UNPACKED_BYTES: number = 500 * 1024 * 1024;

  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  DEPLOY_MAX_ENTRIES: number = 20_000;

  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  DEPLOY_MAX_UPLOAD_BYTES: number = 50 * 1024 * 1024;

  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  EXEC_DEFAULT_TIMEOUT_MS: number = 30_000;

  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  EXEC_MAX_TIMEOUT_MS: number = 600_000;

  @IsOptional() @Type(() => Number) @IsInt() @Min(1024)
  EXEC_MAX_OUTPUT_BYTES: number = 1024 * 1024;

  /** Comma-separated API keys accepted by the evaluation platform (header X-API-Key). */
  @IsOptional() @Transform(toList) @IsString({ each: true }) @MinLength(16, { each: true, message: 'each of EVAL_API_KEYS must be at least 16 characters' })
  EVAL_API_KEYS: string[] = [];

  /** Administrator password for POST /api/auth/sign-in; unset = sign-in disabled. */
  @IsOptional() @IsString() @MinLength(8, { message: 'EVAL_ADMIN_PASSWORD must be at least 8 characters' })
  EVAL_ADMIN_PASSWORD?: string;

  /** HMAC key of session tokens; unset = random per process (sessions end at restart and are not shared between instances). */
  @IsOptional() @IsString() @MinLength(32, { message: 'EVAL_SESSION_SECRET must be at least 32 characters' })
  EVAL_SESSION_SECRET?: string;

  @IsOptional() @Type(() => Number) @IsInt() @Min(60_000)
  EVAL_SESSION_TTL_MS: number = 12 * 60 * 60 * 1000;

  /** Failed sign-ins per client address within EVAL_SIGN_IN_WINDOW_MS before 429. */
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  EVAL_SIGN_IN_MAX_FAILURES: number = 5;

  @IsOptional() @Type(() => Number) @IsInt() @Min(1000)
  EVAL_SIGN_IN_WINDOW_MS: number = 15 * 60 * 1000;

  /** Where run-completion webhooks go; unset/empty = none are sent. */
  @IsOptional() @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'] })
  EVAL_WEBHOOK_URL?: string;

  /** Sent as X-Webhook-Secret when set. */
  @IsOptional() @IsString()
  EVAL_WEBHOOK_SECRET?: string;

  /** Platform default exploration budget (rule 4): sessions a campaign may open inside its window. */
  @IsOptional() @Type(() => Number) @IsInt() @Min(0)
  EVAL_EXPLORATION_SESSIONS_PER_WINDOW: number = 20;

  /** Platform default exploration budget: virtual-user turns per session. */
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  EVAL_EXPLORATION_TURNS_PER_SESSION: number = 10;

  /** Platform default exploration budget: least time between two session starts of a campaign, ms. */
  @IsOptional() @Type(() => Number) @IsInt() @Min(0)
  EVAL_EXPLORATION_MIN_SESSION_INTERVAL_MS: number = 60_000;

  /** Campaign analysis: failed or errored case results given to each scenario's diagnosis (phase 1), at most. */
  @IsOptional() @Type(() => Number) @IsInt() @Min(0) @Max(1000)
  EVAL_ANALYSIS_FAILURE_SAMPLE_CAP: number = 20;

  /** Campaign analysis: longest input, output or error text of one sampled failure, characters (longer ones are cut). */
  @IsOptional() @Type(() => Number) @IsInt() @Min(100)
  EVAL_ANALYSIS_SAMPLE_TEXT_MAX_CHARS: number = 2_000;

  /** Campaign analysis: model calls per step (a diagnosis, the synthesis) before the analysis ends failed; invalid answers are retried with the errors fed back. */
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(10)
  EVAL_ANALYSIS_MAX_ATTEMPTS: number = 3;

  /** Campaign analysis: timeout of one model call, ms. */
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  EVAL_ANALYSIS_MODEL_TIMEOUT_MS: number = 120_000;

  /** Campaign analysis: wait after a failed model call before the next attempt, ms (times the attempt number). */
  @IsOptional() @Type(() => Number) @IsInt() @Min(0)
  EVAL_ANALYSIS_RETRY_DELAY_MS: number = 2_000;

  /** Campaign analysis: how often a working analysis job records that it is alive, ms. */
  @IsOptional() @Type(() => Number) @IsInt() @Min(10)
  EVAL_ANALYSIS_HEARTBEAT_MS: number = 10_000;

  /** Campaign analysis: a generating analysis without a heartbeat for this long is taken over by the sweep, ms (more than twice the heartbeat). */
  @IsOptional() @Type(() => Number) @IsInt() @Min(100)
  EVAL_ANALYSIS_STALE_MS: number = 120_000;

  /** Campaign analysis: how often each instance sweeps for stale generating analyses (also once at start-up), ms. */
  @IsOptional() @Type(() => Number) @IsInt() @Min(50)
  EVAL_ANALYSIS_SWEEP_INTERVAL_MS: number = 60_000;

  /** Campaign analysis: worker runs of one start request (restarts, lost workers, retried jobs) before the analysis ends failed. */
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(100)
  EVAL_ANALYSIS_MAX_RUNS: number = 5;

  /** Most virtual-user turns one POST /api/exploration/sessions/{id}/drive call plays (a request may ask for fewer). */
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(1000)
  EVAL_EXPLORATION_MAX_DRIVE_TURNS: number = 10;

  /** Longest wait for a target's reply to an exploration message, ms (the target's own timeout_ms applies too); then the turn is stored with the error. */
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  EVAL_EXPLORATION_REPLY_TIMEOUT_MS: number = 30_000;

  /** Longest wait for the virtual-user model's next message while driving, ms. */
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  EVAL_EXPLORATION_MODEL_TIMEOUT_MS: number = 60_000;

  /** Evaluation `digital_staff` targets: per-message timeout when the target's settings give none (the whole chat pipeline: rules, model, tools), ms; at most 600000. */
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(600_000)
  EVAL_DIGITAL_STAFF_TIMEOUT_MS: number = 120_000;

  /** Longest virtual-user message, characters (413 above). */
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  EVAL_EXPLORATION_MESSAGE_MAX_CHARS: number = 8_000;

  /** Most notable replies kept in an experience record. */
  @IsOptional() @Type(() => Number) @IsInt() @Min(0)
  EVAL_EXPLORATION_NOTABLE_REPLIES_MAX: number = 20;

  /** Longest message or reply excerpt in an experience record's notable replies, characters. */
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  EVAL_EXPLORATION_EXCERPT_CHARS: number = 500;

  /** Largest file accepted by POST /api/files, bytes (413 above). */
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  EVAL_FILE_MAX_BYTES: number = 50 * 1024 * 1024;

  /** Longest content of one intelligent evaluation message, in characters; also caps its metadata serialised as JSON (413 above). */
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  EVAL_INTELLIGENT_MAX_MESSAGE_CHARS: number = 100_000;

  /** Most messages one intelligent evaluation session holds (409 past it: open another session). */
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  EVAL_INTELLIGENT_MAX_MESSAGES_PER_SESSION: number = 10_000;

  /** Most scenario entries in one campaign plan (POST /api/campaigns answers 400 above it). */
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  EVAL_CAMPAIGN_MAX_PLAN_ENTRIES: number = 50;

  /** Most entries in each of a campaign's seed lists (seed personas, seed goals). */
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  EVAL_CAMPAIGN_MAX_SEEDS: number = 100;

  /** Chat wing: public base URL of this service; the built-in authorization server's issuer is this + `/oauth`. Default http://localhost:$PORT. */
  @IsOptional() @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'] })
  CHAT_PUBLIC_URL?: string;

  /** Chat wing: issuer of the OAuth2 access tokens (an external authorization server); unset = the built-in one at $CHAT_PUBLIC_URL/oauth. */
  @IsOptional() @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'] })
  CHAT_OAUTH_ISSUER?: string;

  /** Chat wing: the `aud` every access token must carry. */
  @IsOptional() @IsString() @Matches(/^\S{1,200}$/, { message: 'CHAT_OAUTH_AUDIENCE must be 1..200 characters without spaces' })
  CHAT_OAUTH_AUDIENCE: string = 'atrium-chat';

  /** Chat wing, external issuer only: JWKS URL; default from the issuer's discovery document. */
  @IsOptional() @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'] })
  CHAT_OAUTH_JWKS_URL?: string;

  /** Chat wing, external issuer only: token endpoint shown in Swagger UI; default from the issuer's discovery document. */
  @IsOptional() @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'] })
  CHAT_OAUTH_TOKEN_URL?: string;

  /** Chat wing: access-token claim holding the tenant id(s), a string or an array of strings. */
  @IsOptional() @IsString() @Matches(/^\S{1,200}$/, { message: 'CHAT_OAUTH_TENANT_CLAIM must be 1..200 characters without spaces' })
  CHAT_OAUTH_TENANT_CLAIM: string = 'tenant';

  /** Chat wing: accepted JWS algorithms of access tokens (asymmetric only). */
  @IsOptional() @Transform(toList) @IsIn(CHAT_OAUTH_ALGORITHM_CHOICES, { each: true, message: `each of CHAT_OAUTH_ALGORITHMS must be one of ${CHAT_OAUTH_ALGORITHM_CHOICES.join(', ')}` })
  CHAT_OAUTH_ALGORITHMS: string[] = ['RS256', 'ES256', 'PS256', 'EdDSA'];

  /** Chat wing: leeway for `exp`/`nbf`/`iat` of access tokens, seconds. */
  @IsOptional() @Type(() => Number) @IsInt() @Min(0) @Max(300)
  CHAT_OAUTH_CLOCK_TOLERANCE_S: number = 30;

  /**
   * Chat wing: access tokens whose signature and claims were verified are remembered (until they expire) so a token is
   * verified once per process, not on every request; most tokens kept. 0 verifies every request.
   */
  @IsOptional() @Type(() => Number) @IsInt() @Min(0) @Max(1_000_000)
  CHAT_AUTH_TOKEN_CACHE_MAX_ENTRIES: number = 1_000;

  /**
   * Chat wing: how long a tenant's existence and status, read by every chat request's auth check, is reused, ms.
   * Changes made through this process apply at once; a change made by another process (the `atrium-chat` CLI,
   * another instance) applies after at most this long. 0 reads the tenant on every request.
   */
  @IsOptional() @Type(() => Number) @IsInt() @Min(0) @Max(60_000)
  CHAT_AUTH_TENANT_CACHE_TTL_MS: number = 5_000;

  /**
   * Chat lists: a page's total of at least CHAT_LIST_COUNT_CACHE_MIN_ROWS rows is reused for this long per filter, ms
   * (0: every page counts). Smaller totals are always exact.
   */
  @IsOptional() @Type(() => Number) @IsInt() @Min(0) @Max(600_000)
  CHAT_LIST_COUNT_CACHE_TTL_MS: number = 2_000;

  /** Chat lists: smallest total that may be reused (see CHAT_LIST_COUNT_CACHE_TTL_MS), rows. */
  @IsOptional() @Type(() => Number) @IsInt() @Min(0)
  CHAT_LIST_COUNT_CACHE_MIN_ROWS: number = 10_000;

  /**
   * Chat lists: how long a tenant's corp names (the lists' `corpName` filters and columns) are reused, ms. Changes
   * through this process apply at once and a name not seen yet is always looked up; a rename or removal by another
   * process shows after at most this long. 0 reads them on every request.
   */
  @IsOptional() @Type(() => Number) @IsInt() @Min(0) @Max(60_000)
  CHAT_LIST_CORP_CACHE_TTL_MS: number = 5_000;

  /** Chat wing, built-in authorization server: lifetime of issued access tokens, seconds. */
  @IsOptional() @Type(() => Number) @IsInt() @Min(60) @Max(86_400)
  CHAT_OAUTH_TOKEN_TTL_S: number = 3600;

  /** Chat messages: largest image attachment, bytes (413 above). */
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  CHAT_MESSAGE_MAX_IMAGE_BYTES: number = 10 * 1024 * 1024;

  /** Chat messages: largest video attachment, bytes (413 above). */
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  CHAT_MESSAGE_MAX_VIDEO_BYTES: number = 10 * 1024 * 1024;

  /** Chat messages: largest file attachment, bytes (413 above). */
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  CHAT_MESSAGE_MAX_FILE_BYTES: number = 20 * 1024 * 1024;

  /** Chat messages: largest GIF (`emotion`) attachment, bytes (413 above). */
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  CHAT_MESSAGE_MAX_EMOTION_BYTES: number = 10 * 1024 * 1024;

  /** Chat messages: longest text message, characters (400 above). */
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  CHAT_MESSAGE_MAX_TEXT_CHARS: number = 4000;

  /** Chat wing's default model (comment and advice optimize, AI replies): OpenAI-compatible base URL; unset = no model. */
  @IsOptional() @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'] })
  CHAT_LLM_BASE_URL?: string;

  /** Chat wing's default model name; unset = no model. */
  @IsOptional() @IsString()
  CHAT_LLM_MODEL?: string;

  /** API key of the chat wing's default model (secret; never logged or returned). */
  @IsOptional() @IsString()
  CHAT_LLM_API_KEY?: string;

  /** Time limit of one call to the chat wing's default model, ms. */
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  CHAT_LLM_TIMEOUT_MS: number = 60_000;

  /** AI replies: how many of the contact's latest messages go into the prompt when its conversation group sets none (the group's historyMessageCount wins). */
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(500)
  CHAT_AI_REPLY_HISTORY_MESSAGES: number = 20;

  /** AI replies: most characters of conversation history in the prompt (oldest messages are dropped first). */
  @IsOptional() @Type(() => Number) @IsInt() @Min(100)
  CHAT_AI_REPLY_HISTORY_MAX_CHARS: number = 16_000;

  /** AI replies: most scripts offered to the model per reply. */
  @IsOptional() @Type(() => Number) @IsInt() @Min(0) @Max(50)
  CHAT_AI_REPLY_MAX_SCRIPTS: number = 5;

  /** AI replies: most characters of script text in the prompt (all scripts together; the rest is cut). */
  @IsOptional() @Type(() => Number) @IsInt() @Min(0)
  CHAT_AI_REPLY_SCRIPT_MAX_CHARS: number = 8000;

  /** AI replies: most model rounds that may call tools before the model must answer in text. */
  @IsOptional() @Type(() => Number) @IsInt() @Min(0) @Max(20)
  CHAT_AI_REPLY_MAX_TOOL_ROUNDS: number = 4;

  /** AI replies: most characters of one tool result given back to the model (the rest is cut). */
  @IsOptional() @Type(() => Number) @IsInt() @Min(100)
  CHAT_AI_REPLY_TOOL_RESULT_MAX_CHARS: number = 8000;

  /** Inbound pipeline: compose attempts of one AI reply (the first and the retries after a model failure). */
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(20)
  CHAT_AI_REPLY_ATTEMPTS: number = 3;

  /** Inbound pipeline: delay before the second compose attempt, doubled for each further one (capped at 10 min), ms. */
  @IsOptional() @Type(() => Number) @IsInt() @Min(0) @Max(600_000)
  CHAT_AI_REPLY_RETRY_DELAY_MS: number = 2000;

  /** Inbound pipeline: time limit of one compose attempt (all model rounds and tool calls together), ms. */
  @IsOptional() @Type(() => Number) @IsInt() @Min(1000)
  CHAT_AI_REPLY_TIMEOUT_MS: number = 120_000;

  /** Inbound pipeline: how often a composing reply renews its lease, ms. */
  @IsOptional() @Type(() => Number) @IsInt() @Min(50)
  CHAT_AI_REPLY_HEARTBEAT_MS: number = 5000;

  /** Inbound pipeline: a queued or composing reply whose lease is this old is re-queued by the sweep (killed process, lost job), ms; more than twice CHAT_AI_REPLY_HEARTBEAT_MS. */
  @IsOptional() @Type(() => Number) @IsInt() @Min(200)
  CHAT_AI_REPLY_STALE_MS: number = 60_000;

  /** Inbound pipeline: interval of the sweep that re-queues stale replies, ms (it also runs at start-up). */
  @IsOptional() @Type(() => Number) @IsInt() @Min(50)
  CHAT_AI_REPLY_SWEEP_INTERVAL_MS: number = 10_000;

  /** Chat wing, external issuer: timeout of the discovery and JWKS requests, ms. */
  @IsOptional() @Type(() => Number) @IsInt() @Min(100)
  CHAT_OAUTH_HTTP_TIMEOUT_MS: number = 5000;

  /** Tool-style endpoints and MCP tools (src/chat/mcp): most tag ids and names of one tag add/delete request (400 above). */
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(200)
  CHAT_MCP_MAX_TAGS: number = 20;
}

/** Typed, resolved configuration (absolute paths, derived defaults filled in). */
export interface AppConfig {
  port: number;
  host: string;
  nodeEnv: string;
  logLevel: string;
  /** Set: use that server. Undefined: start embedded PostgreSQL. */
  databaseUrl?: string;
  dataDir: string;
  embeddedPostgresPort: number;
  shutdownGraceMs: number;
  jsonBodyLimitBytes: number;
  /**
   * Chat wing OAuth2: the app verifies bearer JWTs as a resource server; with `issuer` undefined it also runs the
   * built-in authorization server (issuer `${publicUrl}/oauth`). Durations in seconds unless named *Ms.
   */
  chatAuth: {
    publicUrl: string;
    issuer?: string;
    audience: string;
    jwksUrl?: string;
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
  };
  /** Chat lists (src/chat/common/list-pager.ts, src/chat/corps/corp-directory.ts): reuse of big totals and corp names, ms and rows. */
  chatLists: { countCacheTtlMs: number; countCacheMinRows: number; corpCacheTtlMs: number };
  /** File storage port (DESIGN.md, External peers): the local adapter keeps blobs under `root`. */
  storage: { root: string };
  /** The chat platform port (src/chat/platform): adapter, HTTP adapter limits (ms) and simulator settings. */
  chatPlatform: {
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
  };
  /** Platform event callbacks (src/chat/platform/callback): timestamp skew accepted (ms), largest body (bytes). */
  chatCallback: { maxSkewMs: number; maxBytes: number };
  /** Chat staff users and digital staff (src/chat/staff-users, src/chat/digital-staff): request limits (counts). */
  chatStaff: { maxIds: number; maxServiceTimeWindows: number };
  /** Chat contact ways (src/chat/contact-ways): most ids of one QR code refresh request. */
  chatContactWays: { refreshMaxIds: number };
  /** Chat contacts and group rooms (src/chat/contacts, src/chat/group-rooms): request limits (counts, bytes). */
  chatContacts: {
    batchMaxItems: number;
    lookupMaxIds: number;
    profileMaxBytes: number;
    dedupMaxLimit: number;
    syncMaxItems: number;
    syncPageSize: number;
  };
  /** Chat one-click diagnosis (src/chat/diagnosis): time limit of the platform probe, ms. */
  chatDiagnosis: { platformTimeoutMs: number };
  /**
   * Chat human-intervention and keyword tag rules (src/chat/intervention-rules, src/chat/tag-rules): counts, pattern
   * length and matched text (characters), regex time limit (ms).
   */
  chatRules: { maxPerTenant: number; maxPatterns: number; maxPatternLength: number; matchMaxChars: number; regexTimeoutMs: number; regexProbeTimeoutMs: number };
  /** Chat tool API providers (src/chat/tool-providers): network policy, counts, sizes (bytes), timeouts (ms). */
  chatTools: {
    allowPrivateNetworks: boolean;
    maxProviders: number;
    maxOperations: number;
    maxSchemaBytes: number;
    defaultTimeoutMs: number;
    maxTimeoutMs: number;
    maxRequestBytes: number;
    maxResponseBytes: number;
    maxRedirects: number;
  };
  /** Chat variables (src/chat/variables): counts per tenant / scope / enum, value size (bytes), list cap. */
  chatVariables: { maxScopes: number; maxDefinitions: number; maxEnumOptions: number; valueMaxBytes: number; listMax: number };
  /** Chat scripts (src/chat/scripts): tree size and depth, text size (chars), items per script, search caps. */
  chatScripts: { maxCategories: number; maxDepth: number; contentMaxChars: number; maxItems: number; searchMaxResults: number; searchCandidates: number };
  /** Chat contact views (src/chat/contact-views): filter conditions per view, views per owner. */
  chatContactViews: { maxConditions: number; maxPerOwner: number };
  /** Chat conversation groups, triggers and event definitions (src/chat/conversation-groups): counts per group. */
  chatConversations: { maxTriggersPerGroup: number; maxEventDefinitionsPerGroup: number };
  /** Chat channels and chat groups (src/chat/channels, src/chat/chat-groups): counts per channel / group. */
  chatChannels: { maxAllowedOrigins: number; maxGroupMembers: number; maxGroupChannels: number };
  /** Chat messages (src/chat/messages): attachment size limits per message type (bytes), text length (chars). */
  chatMessages: { maxBytes: { image: number; video: number; file: number; emotion: number }; maxTextChars: number };
  /** Tool-style endpoints and MCP tools (src/chat/mcp): most tags of one tag request (count). */
  chatMcp: { maxTags: number };
  /** The chat wing's default model (src/llm): unset base URL or model = none configured; timeout ms; the key is a secret. */
  chatLlm: { baseUrl?: string; model?: string; apiKey?: string; timeoutMs: number };
  /** AI replies (src/chat/ai-reply): history (messages, chars), scripts (count, chars), tool rounds, tool result size (chars). */
  chatAiReply: { historyMessages: number; historyMaxChars: number; maxScripts: number; scriptMaxChars: number; maxToolRounds: number; toolResultMaxChars: number };
  /** The inbound AI reply pipeline (src/chat/pipeline): compose attempts, retry delay, compose time limit, lease heartbeat / stale age and sweep interval (ms). */
  chatPipeline: { attempts: number; retryDelayMs: number; timeoutMs: number; heartbeatMs: number; staleMs: number; sweepIntervalMs: number };
  /** Chat enterprise robot (src/chat/ent-robot): message limits (bytes are UTF-8 bytes). */
  chatEntRobot: { textMaxBytes: number; markdownMaxBytes: number; maxMentions: number };
  deploy: {
    publicUrl: string;
    registrationKey?: string;
    ownerToken?: string;
    defaultPermissions: DeployPermission[];
    sitesDir: string;
    allowedDirs: string[];
    maxArchiveBytes: number;
    maxUnpackedBytes: number;
    maxEntries: number;
    maxUploadBytes: number;
  };
  exec: { defaultTimeoutMs: number; maxTimeoutMs: number; maxOutputBytes: number };
  evaluation: {
    apiKeys: string[];
    adminPassword?: string;
    sessionSecret?: string;
    sessionTtlMs: number;
    signInMaxFailures: number;
    signInWindowMs: number;
    webhookUrl?: string;
    webhookSecret?: string;
    /** Platform default exploration budget; campaigns override it field by field. */
    explorationBudget: ExplorationBudget;
    /** Campaign analysis: failure sample cap (results) and text cap (chars), model attempts, timeouts and intervals (ms), worker runs per start. */
    analysis: {
      failureSampleCap: number;
      sampleTextMaxChars: number;
      maxAttempts: number;
      modelTimeoutMs: number;
      retryDelayMs: number;
      heartbeatMs: number;
      staleMs: number;
      sweepIntervalMs: number;
      maxRuns: number;
    };
    /** Exploration sessions: turns per drive call, reply and model timeouts (ms), message size (chars), experience record caps. */
    exploration: { maxDriveTurns: number; replyTimeoutMs: number; modelTimeoutMs: number; messageMaxChars: number; notableRepliesMax: number; excerptChars: number };
    /** Largest uploaded evaluation file, bytes. */
    fileMaxBytes: number;
    /** Intelligent evaluation limits: characters per message (content, and metadata as JSON), messages per session. */
    intelligent: { maxMessageChars: number; maxMessagesPerSession: number };
    /** Campaign limits: plan entries per campaign, entries per seed list. */
    campaigns: { maxPlanEntries: number; maxSeeds: number };
    /** `digital_staff` targets: default per-message timeout, ms. */
    digitalStaffTimeoutMs: number;
  };
}

/** Thrown at start-up when an environment variable is invalid; the message names each bad variable. */
export class ConfigurationError extends Error {}

/**
 * Reads and validates the environment.
 * @param env usually `process.env`
 * @returns the resolved configuration
 * @throws ConfigurationError naming every invalid variable
 */
export function loadConfig(env: NodeJS.ProcessEnv): AppConfig {
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const vars = plainToInstance(EnvironmentVariables, present, { exposeDefaultValues: true });
  const errors = validateSync(vars, { whitelist: false, forbidUnknownValues: false });
  if (errors.length > 0) {
    const lines = errors.map((error) => `${error.property}: ${Object.values(error.constraints ?? {}).join('; ')}`);
    throw new ConfigurationError(`Invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  if (vars.EXEC_DEFAULT_TIMEOUT_MS > vars.EXEC_MAX_TIMEOUT_MS) {
    throw new ConfigurationError('Invalid configuration:\n  EXEC_DEFAULT_TIMEOUT_MS: must not exceed EXEC_MAX_TIMEOUT_MS');
  }
  if (vars.CHAT_TOOL_DEFAULT_TIMEOUT_MS > vars.CHAT_TOOL_MAX_TIMEOUT_MS) {
    throw new ConfigurationError('Invalid configuration:\n  CHAT_TOOL_DEFAULT_TIMEOUT_MS: must not exceed CHAT_TOOL_MAX_TIMEOUT_MS');
  }
  if (vars.EVAL_ANALYSIS_STALE_MS <= 2 * vars.EVAL_ANALYSIS_HEARTBEAT_MS) {
    throw new ConfigurationError('Invalid configuration:\n  EVAL_ANALYSIS_STALE_MS: must be more than twice EVAL_ANALYSIS_HEARTBEAT_MS');
  }
  if (vars.CHAT_AI_REPLY_STALE_MS <= 2 * vars.CHAT_AI_REPLY_HEARTBEAT_MS) {
    throw new ConfigurationError('Invalid configuration:\n  CHAT_AI_REPLY_STALE_MS: must be more than twice CHAT_AI_REPLY_HEARTBEAT_MS');
  }
  if (vars.CHAT_PLATFORM_MODE === 'http' && !vars.CHAT_PLATFORM_BASE_URL) {
    throw new ConfigurationError('Invalid configuration:\n  CHAT_PLATFORM_BASE_URL: required when CHAT_PLATFORM_MODE is http');
  }
  if (vars.CHAT_OAUTH_ALGORITHMS.length === 0) {
    throw new ConfigurationError('Invalid configuration:\n  CHAT_OAUTH_ALGORITHMS: name at least one algorithm');
  }
  if (!vars.CHAT_OAUTH_ISSUER && !vars.CHAT_OAUTH_ALGORITHMS.includes('ES256')) {
    throw new ConfigurationError('Invalid configuration:\n  CHAT_OAUTH_ALGORITHMS: must include ES256, which the built-in authorization server signs with (CHAT_OAUTH_ISSUER is unset)');
  }
  if (!vars.CHAT_OAUTH_ISSUER && (vars.CHAT_OAUTH_JWKS_URL || vars.CHAT_OAUTH_TOKEN_URL)) {
    throw new ConfigurationError('Invalid configuration:\n  CHAT_OAUTH_JWKS_URL, CHAT_OAUTH_TOKEN_URL: only apply with an external issuer (set CHAT_OAUTH_ISSUER)');
  }
  const dataDir = resolve(vars.DATA_DIR);
  const inData = (path: string) => (isAbsolute(path) ? path : resolve(path));
  return {
    port: vars.PORT,
    host: vars.HOST,
    nodeEnv: vars.NODE_ENV,
    logLevel: vars.LOG_LEVEL,
    databaseUrl: vars.DATABASE_URL,
    dataDir,
    embeddedPostgresPort: vars.EMBEDDED_POSTGRES_PORT,
    shutdownGraceMs: vars.SHUTDOWN_GRACE_MS,
    jsonBodyLimitBytes: vars.HTTP_JSON_BODY_LIMIT_BYTES,
    chatAuth: {
      publicUrl: (vars.CHAT_PUBLIC_URL ?? `http://localhost:${vars.PORT}`).replace(/\/+$/, ''),
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
    },
    chatLists: { countCacheTtlMs: vars.CHAT_LIST_COUNT_CACHE_TTL_MS, countCacheMinRows: vars.CHAT_LIST_COUNT_CACHE_MIN_ROWS, corpCacheTtlMs: vars.CHAT_LIST_CORP_CACHE_TTL_MS },
    storage: { root: vars.STORAGE_DIR ? inData(vars.STORAGE_DIR) : resolve(dataDir, 'files') },
    chatPlatform: {
      mode: vars.CHAT_PLATFORM_MODE,
      baseUrl: vars.CHAT_PLATFORM_BASE_URL?.replace(/\/+$/, ''),
      timeoutMs: vars.CHAT_PLATFORM_HTTP_TIMEOUT_MS,
      retries: vars.CHAT_PLATFORM_HTTP_RETRIES,
      retryBaseDelayMs: vars.CHAT_PLATFORM_HTTP_RETRY_BASE_DELAY_MS,
      retryMaxDelayMs: vars.CHAT_PLATFORM_HTTP_RETRY_MAX_DELAY_MS,
      tokenRefreshMarginMs: vars.CHAT_PLATFORM_TOKEN_REFRESH_MARGIN_MS,
      simulatorQrBaseUrl: (vars.CHAT_SIMULATOR_QR_BASE_URL ?? `http://localhost:${vars.PORT}/api/chat-simulator/qr`).replace(/\/+$/, ''),
    },
    chatCallback: { maxSkewMs: vars.CHAT_CALLBACK_MAX_SKEW_MS, maxBytes: vars.CHAT_CALLBACK_MAX_BYTES },
    chatStaff: { maxIds: vars.CHAT_STAFF_MAX_IDS, maxServiceTimeWindows: vars.CHAT_SERVICE_TIME_MAX_WINDOWS },
    chatContactWays: { refreshMaxIds: vars.CHAT_CONTACT_WAY_REFRESH_MAX_IDS },
    chatContacts: {
      batchMaxItems: vars.CHAT_CONTACT_BATCH_MAX_ITEMS,
      lookupMaxIds: vars.CHAT_CONTACT_LOOKUP_MAX_IDS,
      profileMaxBytes: vars.CHAT_CUSTOMER_PROFILE_MAX_BYTES,
      dedupMaxLimit: vars.CHAT_GROUP_MEMBER_DEDUP_MAX_LIMIT,
      syncMaxItems: vars.CHAT_SYNC_MAX_ITEMS,
      syncPageSize: vars.CHAT_SYNC_PAGE_SIZE,
    },
    chatDiagnosis: { platformTimeoutMs: vars.CHAT_DIAGNOSIS_PLATFORM_TIMEOUT_MS },
    chatRules: {
      maxPerTenant: vars.CHAT_RULE_MAX_PER_TENANT,
      maxPatterns: vars.CHAT_RULE_MAX_PATTERNS,
      maxPatternLength: vars.CHAT_RULE_MAX_PATTERN_LENGTH,
      matchMaxChars: vars.CHAT_RULE_MATCH_MAX_CHARS,
      regexTimeoutMs: vars.CHAT_RULE_REGEX_TIMEOUT_MS,
      regexProbeTimeoutMs: vars.CHAT_RULE_REGEX_PROBE_TIMEOUT_MS,
    },
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
    chatVariables: {
      maxScopes: vars.CHAT_VARIABLE_MAX_SCOPES,
      maxDefinitions: vars.CHAT_VARIABLE_MAX_DEFINITIONS,
      maxEnumOptions: vars.CHAT_VARIABLE_MAX_ENUM_OPTIONS,
      valueMaxBytes: vars.CHAT_VARIABLE_VALUE_MAX_BYTES,
      listMax: vars.CHAT_VARIABLE_LIST_MAX,
    },
    chatScripts: {
      maxCategories: vars.CHAT_SCRIPT_MAX_CATEGORIES,
      maxDepth: vars.CHAT_SCRIPT_CATEGORY_MAX_DEPTH,
      contentMaxChars: vars.CHAT_SCRIPT_CONTENT_MAX_CHARS,
      maxItems: vars.CHAT_SCRIPT_MAX_ITEMS,
      searchMaxResults: vars.CHAT_SCRIPT_SEARCH_MAX_RESULTS,
      searchCandidates: vars.CHAT_SCRIPT_SEARCH_CANDIDATES,
    },
    chatContactViews: { maxConditions: vars.CHAT_CONTACT_VIEW_MAX_CONDITIONS, maxPerOwner: vars.CHAT_CONTACT_VIEW_MAX_PER_OWNER },
    chatConversations: { maxTriggersPerGroup: vars.CHAT_CONVERSATION_GROUP_MAX_TRIGGERS, maxEventDefinitionsPerGroup: vars.CHAT_CONVERSATION_GROUP_MAX_EVENT_DEFINITIONS },
    chatChannels: { maxAllowedOrigins: vars.CHAT_CHANNEL_MAX_ALLOWED_ORIGINS, maxGroupMembers: vars.CHAT_GROUP_MAX_MEMBERS, maxGroupChannels: vars.CHAT_GROUP_MAX_CHANNELS },
    chatMessages: {
      maxBytes: { image: vars.CHAT_MESSAGE_MAX_IMAGE_BYTES, video: vars.CHAT_MESSAGE_MAX_VIDEO_BYTES, file: vars.CHAT_MESSAGE_MAX_FILE_BYTES, emotion: vars.CHAT_MESSAGE_MAX_EMOTION_BYTES },
      maxTextChars: vars.CHAT_MESSAGE_MAX_TEXT_CHARS,
    },
    chatMcp: { maxTags: vars.CHAT_MCP_MAX_TAGS },
    chatLlm: { baseUrl: vars.CHAT_LLM_BASE_URL, model: vars.CHAT_LLM_MODEL, apiKey: vars.CHAT_LLM_API_KEY, timeoutMs: vars.CHAT_LLM_TIMEOUT_MS },
    chatAiReply: {
      historyMessages: vars.CHAT_AI_REPLY_HISTORY_MESSAGES,
      historyMaxChars: vars.CHAT_AI_REPLY_HISTORY_MAX_CHARS,
      maxScripts: vars.CHAT_AI_REPLY_MAX_SCRIPTS,
      scriptMaxChars: vars.CHAT_AI_REPLY_SCRIPT_MAX_CHARS,
      maxToolRounds: vars.CHAT_AI_REPLY_MAX_TOOL_ROUNDS,
      toolResultMaxChars: vars.CHAT_AI_REPLY_TOOL_RESULT_MAX_CHARS,
    },
    chatPipeline: {
      attempts: vars.CHAT_AI_REPLY_ATTEMPTS,
      retryDelayMs: vars.CHAT_AI_REPLY_RETRY_DELAY_MS,
      timeoutMs: vars.CHAT_AI_REPLY_TIMEOUT_MS,
      heartbeatMs: vars.CHAT_AI_REPLY_HEARTBEAT_MS,
      staleMs: vars.CHAT_AI_REPLY_STALE_MS,
      sweepIntervalMs: vars.CHAT_AI_REPLY_SWEEP_INTERVAL_MS,
    },
    chatEntRobot: { textMaxBytes: vars.CHAT_ENT_ROBOT_TEXT_MAX_BYTES, markdownMaxBytes: vars.CHAT_ENT_ROBOT_MARKDOWN_MAX_BYTES, maxMentions: vars.CHAT_ENT_ROBOT_MAX_MENTIONS },
    deploy: {
      publicUrl: (vars.DEPLOY_PUBLIC_URL ?? `http://localhost:${vars.PORT}`).replace(/\/+$/, ''),
      registrationKey: vars.DEPLOY_REGISTRATION_KEY,
      ownerToken: vars.DEPLOY_OWNER_TOKEN,
      defaultPermissions: [...new Set(vars.DEPLOY_DEFAULT_PERMISSIONS)],
      sitesDir: vars.DEPLOY_SITES_DIR ? inData(vars.DEPLOY_SITES_DIR) : resolve(dataDir, 'sites'),
      allowedDirs: (vars.DEPLOY_ALLOWED_DIRS ?? [resolve(dataDir, 'workspace')]).map(inData),
      maxArchiveBytes: vars.DEPLOY_MAX_ARCHIVE_BYTES,
      maxUnpackedBytes: vars.DEPLOY_MAX_UNPACKED_BYTES,
      maxEntries: vars.DEPLOY_MAX_ENTRIES,
      maxUploadBytes: vars.DEPLOY_MAX_UPLOAD_BYTES,
    },
    exec: {
      defaultTimeoutMs: vars.EXEC_DEFAULT_TIMEOUT_MS,
      maxTimeoutMs: vars.EXEC_MAX_TIMEOUT_MS,
      maxOutputBytes: vars.EXEC_MAX_OUTPUT_BYTES,
    },
    evaluation: {
      apiKeys: vars.EVAL_API_KEYS,
      adminPassword: vars.EVAL_ADMIN_PASSWORD,
      sessionSecret: vars.EVAL_SESSION_SECRET,
      sessionTtlMs: vars.EVAL_SESSION_TTL_MS,
      signInMaxFailures: vars.EVAL_SIGN_IN_MAX_FAILURES,
      signInWindowMs: vars.EVAL_SIGN_IN_WINDOW_MS,
      webhookUrl: vars.EVAL_WEBHOOK_URL,
      webhookSecret: vars.EVAL_WEBHOOK_SECRET,
      explorationBudget: {
        sessionsPerWindow: vars.EVAL_EXPLORATION_SESSIONS_PER_WINDOW,
        turnsPerSession: vars.EVAL_EXPLORATION_TURNS_PER_SESSION,
        minSessionIntervalMs: vars.EVAL_EXPLORATION_MIN_SESSION_INTERVAL_MS,
      },
      analysis: {
        failureSampleCap: vars.EVAL_ANALYSIS_FAILURE_SAMPLE_CAP,
        sampleTextMaxChars: vars.EVAL_ANALYSIS_SAMPLE_TEXT_MAX_CHARS,
        maxAttempts: vars.EVAL_ANALYSIS_MAX_ATTEMPTS,
        modelTimeoutMs: vars.EVAL_ANALYSIS_MODEL_TIMEOUT_MS,
        retryDelayMs: vars.EVAL_ANALYSIS_RETRY_DELAY_MS,
        heartbeatMs: vars.EVAL_ANALYSIS_HEARTBEAT_MS,
        staleMs: vars.EVAL_ANALYSIS_STALE_MS,
        sweepIntervalMs: vars.EVAL_ANALYSIS_SWEEP_INTERVAL_MS,
        maxRuns: vars.EVAL_ANALYSIS_MAX_RUNS,
      },
      exploration: {
        maxDriveTurns: vars.EVAL_EXPLORATION_MAX_DRIVE_TURNS,
        replyTimeoutMs: vars.EVAL_EXPLORATION_REPLY_TIMEOUT_MS,
        modelTimeoutMs: vars.EVAL_EXPLORATION_MODEL_TIMEOUT_MS,
        messageMaxChars: vars.EVAL_EXPLORATION_MESSAGE_MAX_CHARS,
        notableRepliesMax: vars.EVAL_EXPLORATION_NOTABLE_REPLIES_MAX,
        excerptChars: vars.EVAL_EXPLORATION_EXCERPT_CHARS,
      },
      fileMaxBytes: vars.EVAL_FILE_MAX_BYTES,
      intelligent: { maxMessageChars: vars.EVAL_INTELLIGENT_MAX_MESSAGE_CHARS, maxMessagesPerSession: vars.EVAL_INTELLIGENT_MAX_MESSAGES_PER_SESSION },
      campaigns: { maxPlanEntries: vars.EVAL_CAMPAIGN_MAX_PLAN_ENTRIES, maxSeeds: vars.EVAL_CAMPAIGN_MAX_SEEDS },
      digitalStaffTimeoutMs: vars.EVAL_DIGITAL_STAFF_TIMEOUT_MS,
    },
  };
}

/** Injection token of the resolved {@link AppConfig}. */
export const APP_CONFIG = Symbol('APP_CONFIG');
