import { Transform, Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, IsUrl, Max, Min, MinLength } from 'class-validator';
import { ConfigVariable, declareConfig, toList, typedSlice } from '../config/config-variable';
import type { ExplorationBudget } from './campaigns/exploration-budget';

const ACCESS = 'Evaluation access';
const WEBHOOKS = 'Evaluation webhooks';
const LIMITS = 'Evaluation limits';
const EXPLORATION = 'Evaluation exploration';
const ANALYSIS = 'Evaluation analysis';

/** The evaluation platform's environment variables (evaluation-platform.md): access, webhooks, limits, exploration, analysis. */
export class EvaluationVariables {
  @ConfigVariable({
    group: ACCESS,
    description: 'comma-separated API keys of the evaluation platform (header `X-API-Key`, min. 16 chars each)',
    unit: 'list',
    secret: true,
  })
  @IsOptional() @Transform(toList) @IsString({ each: true }) @MinLength(16, { each: true, message: 'each of EVAL_API_KEYS must be at least 16 characters' })
  EVAL_API_KEYS: string[] = [];

  @ConfigVariable({
    group: ACCESS,
    description: 'administrator password for `POST /api/auth/sign-in`',
    unit: 'text',
    defaultText: 'unset (sign-in disabled)',
    secret: true,
  })
  @IsOptional() @IsString() @MinLength(8, { message: 'EVAL_ADMIN_PASSWORD must be at least 8 characters' })
  EVAL_ADMIN_PASSWORD?: string;

  @ConfigVariable({
    group: ACCESS,
    description: 'HMAC key of session tokens (min. 32 chars); set it so sessions survive restarts and work on every instance',
    unit: 'text',
    defaultText: 'random per process',
    secret: true,
  })
  @IsOptional() @IsString() @MinLength(32, { message: 'EVAL_SESSION_SECRET must be at least 32 characters' })
  EVAL_SESSION_SECRET?: string;

  @ConfigVariable({ group: ACCESS, description: 'session token lifetime', unit: 'ms' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(60_000)
  EVAL_SESSION_TTL_MS: number = 12 * 60 * 60 * 1000;

  @ConfigVariable({ group: ACCESS, description: 'failed sign-ins per client address within the window before 429', unit: 'count' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  EVAL_SIGN_IN_MAX_FAILURES: number = 5;

  @ConfigVariable({ group: ACCESS, description: 'window of the sign-in rate limit', unit: 'ms' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1000)
  EVAL_SIGN_IN_WINDOW_MS: number = 15 * 60 * 1000;

  @ConfigVariable({
    group: WEBHOOKS,
    description: 'run-completion webhook target: POST JSON `{event, run_id, status, summary, report_url}`, 10 s timeout, failures only logged',
    unit: 'url',
    defaultText: 'unset (no webhook)',
  })
  @IsOptional() @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'] })
  EVAL_WEBHOOK_URL?: string;

  @ConfigVariable({ group: WEBHOOKS, description: 'sent as `X-Webhook-Secret` when set', unit: 'text', secret: true })
  @IsOptional() @IsString()
  EVAL_WEBHOOK_SECRET?: string;

  @ConfigVariable({
    group: LIMITS,
    description: 'per-message timeout of a `digital_staff` target whose settings give no `timeout_ms` (the whole chat pipeline: rules, model, tools), ms; 1..600000',
    unit: 'ms',
  })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(600_000)
  EVAL_DIGITAL_STAFF_TIMEOUT_MS: number = 120_000;

  @ConfigVariable({ group: LIMITS, description: 'largest `POST /api/files` upload (413 above, nothing stored)', unit: 'bytes' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  EVAL_FILE_MAX_BYTES: number = 50 * 1024 * 1024;

  @ConfigVariable({
    group: LIMITS,
    description: 'longest intelligent evaluation message content, and longest metadata as JSON, in characters (413 above)',
    unit: 'chars',
  })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  EVAL_INTELLIGENT_MAX_MESSAGE_CHARS: number = 100_000;

  @ConfigVariable({ group: LIMITS, description: 'most messages one intelligent evaluation session holds (409 past it)', unit: 'count' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  EVAL_INTELLIGENT_MAX_MESSAGES_PER_SESSION: number = 10_000;

  @ConfigVariable({ group: LIMITS, description: 'most scenario entries in one campaign plan (more → 400)', unit: 'count' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  EVAL_CAMPAIGN_MAX_PLAN_ENTRIES: number = 50;

  @ConfigVariable({ group: LIMITS, description: 'most entries in each campaign seed list (`seed_personas`, `seed_goals`; more → 400)', unit: 'count' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  EVAL_CAMPAIGN_MAX_SEEDS: number = 100;

  @ConfigVariable({
    group: EXPLORATION,
    description: 'default exploration budget: sessions a campaign may open inside its service-cycle window (a campaign\'s `budget_override` replaces each field separately)',
    unit: 'count',
  })
  @IsOptional() @Type(() => Number) @IsInt() @Min(0)
  EVAL_EXPLORATION_SESSIONS_PER_WINDOW: number = 20;

  @ConfigVariable({
    group: EXPLORATION,
    description: 'default exploration budget: virtual-user turns per session (a turn counts once delivered, even without a reply)',
    unit: 'count',
  })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  EVAL_EXPLORATION_TURNS_PER_SESSION: number = 10;

  @ConfigVariable({ group: EXPLORATION, description: 'default exploration budget: least time between two session starts of one campaign', unit: 'ms' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(0)
  EVAL_EXPLORATION_MIN_SESSION_INTERVAL_MS: number = 60_000;

  @ConfigVariable({
    group: EXPLORATION,
    description: 'most virtual-user turns one `POST /api/exploration/sessions/{id}/drive` call plays (the default and upper bound of its `max_turns`)',
    unit: 'count',
  })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(1000)
  EVAL_EXPLORATION_MAX_DRIVE_TURNS: number = 10;

  @ConfigVariable({
    group: EXPLORATION,
    description: 'longest wait for the target\'s reply to an exploration message (the target\'s own `timeout_ms` applies too); the turn is then stored with the error and still counts',
    unit: 'ms',
  })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  EVAL_EXPLORATION_REPLY_TIMEOUT_MS: number = 30_000;

  @ConfigVariable({ group: EXPLORATION, description: 'longest wait for the virtual-user model\'s next message while driving', unit: 'ms' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  EVAL_EXPLORATION_MODEL_TIMEOUT_MS: number = 60_000;

  @ConfigVariable({ group: EXPLORATION, description: 'longest virtual-user message, characters (413 above)', unit: 'chars' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  EVAL_EXPLORATION_MESSAGE_MAX_CHARS: number = 8_000;

  @ConfigVariable({ group: EXPLORATION, description: 'most notable replies kept in a closed session\'s experience record', unit: 'count' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(0)
  EVAL_EXPLORATION_NOTABLE_REPLIES_MAX: number = 20;

  @ConfigVariable({ group: EXPLORATION, description: 'longest message/reply excerpt in the experience record\'s notable replies', unit: 'chars' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  EVAL_EXPLORATION_EXCERPT_CHARS: number = 500;

  @ConfigVariable({
    group: ANALYSIS,
    description: 'campaign analysis: failed or errored case results (one per distinct case) given to each scenario\'s diagnosis',
    unit: 'count',
  })
  @IsOptional() @Type(() => Number) @IsInt() @Min(0) @Max(1000)
  EVAL_ANALYSIS_FAILURE_SAMPLE_CAP: number = 20;

  @ConfigVariable({
    group: ANALYSIS,
    description: 'campaign analysis: longest input, output, rule reason or error of one sampled failure (longer ones are cut)',
    unit: 'chars',
  })
  @IsOptional() @Type(() => Number) @IsInt() @Min(100)
  EVAL_ANALYSIS_SAMPLE_TEXT_MAX_CHARS: number = 2_000;

  @ConfigVariable({
    group: ANALYSIS,
    description: 'campaign analysis: model calls per step (each diagnosis, the synthesis); an invalid answer is retried with the validation errors, then the analysis ends `failed` with the reason',
    unit: 'count',
  })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(10)
  EVAL_ANALYSIS_MAX_ATTEMPTS: number = 3;

  @ConfigVariable({ group: ANALYSIS, description: 'campaign analysis: timeout of one model call', unit: 'ms' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  EVAL_ANALYSIS_MODEL_TIMEOUT_MS: number = 120_000;

  @ConfigVariable({ group: ANALYSIS, description: 'campaign analysis: wait after a failed model call, times the attempt number', unit: 'ms' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(0)
  EVAL_ANALYSIS_RETRY_DELAY_MS: number = 2_000;

  @ConfigVariable({ group: ANALYSIS, description: 'campaign analysis: how often a working analysis job records that it is alive', unit: 'ms' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(10)
  EVAL_ANALYSIS_HEARTBEAT_MS: number = 10_000;

  @ConfigVariable({
    group: ANALYSIS,
    description: 'campaign analysis: a `generating` analysis without heartbeat for this long (killed app, job abandoned by the queue) is resumed by the sweep; more than twice the heartbeat',
    unit: 'ms',
  })
  @IsOptional() @Type(() => Number) @IsInt() @Min(100)
  EVAL_ANALYSIS_STALE_MS: number = 120_000;

  @ConfigVariable({
    group: ANALYSIS,
    description: 'campaign analysis: how often each instance looks for stale analyses (also once at start-up)',
    unit: 'ms',
  })
  @IsOptional() @Type(() => Number) @IsInt() @Min(50)
  EVAL_ANALYSIS_SWEEP_INTERVAL_MS: number = 60_000;

  @ConfigVariable({
    group: ANALYSIS,
    description: 'campaign analysis: worker runs of one start request (restarts, lost workers) before it ends `failed` with the reason, so it never stays `generating`',
    unit: 'count',
  })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(100)
  EVAL_ANALYSIS_MAX_RUNS: number = 5;
}

/** The evaluation platform (evaluation-platform.md): credentials are secrets; durations ms unless named otherwise. */
export interface EvaluationSettings {
  /** Accepted `X-API-Key` values (secrets). */
  apiKeys: string[];
  /** Undefined: sign-in disabled. */
  adminPassword?: string;
  /** Undefined: a random key per process (sessions end at restart). */
  sessionSecret?: string;
  sessionTtlMs: number;
  signInMaxFailures: number;
  signInWindowMs: number;
  /** Undefined: no run-completion webhook is sent. */
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
}

/** The evaluation platform's slice of AppConfig: `evaluation`. */
export const evaluationConfig = declareConfig({
  wing: 'evaluation',
  variables: EvaluationVariables,
  check: (vars) => (vars.EVAL_ANALYSIS_STALE_MS <= 2 * vars.EVAL_ANALYSIS_HEARTBEAT_MS ? ['EVAL_ANALYSIS_STALE_MS: must be more than twice EVAL_ANALYSIS_HEARTBEAT_MS'] : []),
  resolve: (vars) => ({
    evaluation: typedSlice<EvaluationSettings>({
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
    }),
  }),
});

/** The evaluation platform's resolved values (`evaluation`). */
export type EvaluationConfig = ReturnType<typeof evaluationConfig.resolve>;

declare module '../config/app-config' {
  /** The evaluation platform's slice: `evaluation`. */
  interface AppConfig extends EvaluationConfig {}
}
