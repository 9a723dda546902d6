import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsOptional, IsString, IsUUID, Max, MaxLength, Min, MinLength } from 'class-validator';
import { PageBoundsQueryDto, SortParam } from '../../common/paging/page';
import type { ExplorationBudget } from '../campaigns/exploration-budget';
import { CALLER_OUTCOMES, CallerOutcome, EXPLORATION_OUTCOMES, ExperienceRecord, ExplorationOutcome, NOTABLE_REASONS, NotableReason, OutcomeSource } from './experience-record';
import { ExplorationMessageEntity } from './exploration-message.entity';
import { EXPLORATION_MODES, EXPLORATION_SESSION_STATUSES, ExplorationMode, ExplorationSessionEntity, ExplorationSessionStatus } from './exploration-session.entity';
import type { StopKind } from './stop-marker';

/** Longest persona or goal text, characters. */
export const MAX_PERSONA_OR_GOAL_CHARS = 2000;
/** Longest closing note, characters. */
export const MAX_NOTES_CHARS = 4000;
/** Hard upper bound of `max_turns` in a drive request (the configured EVAL_EXPLORATION_MAX_DRIVE_TURNS applies below it). */
export const MAX_DRIVE_TURNS_BOUND = 1000;

/** Body of `POST /api/exploration/sessions`. */
export class CreateExplorationSessionDto {
  @ApiProperty({ description: 'The campaign to explore: it must be `running`, have a seed set, and have exploration budget left.', format: 'uuid' })
  @IsUUID()
  campaign_id: string;

  @ApiProperty({ description: 'Who the virtual user is (usually one of the campaign\'s seed personas).', example: 'an impatient frequent flyer', maxLength: MAX_PERSONA_OR_GOAL_CHARS })
  @IsString() @MinLength(1) @MaxLength(MAX_PERSONA_OR_GOAL_CHARS)
  persona: string;

  @ApiProperty({ description: 'What the virtual user wants to achieve (usually one of the campaign\'s seed goals).', example: 'rebook a cancelled flight for tomorrow', maxLength: MAX_PERSONA_OR_GOAL_CHARS })
  @IsString() @MinLength(1) @MaxLength(MAX_PERSONA_OR_GOAL_CHARS)
  goal: string;

  @ApiPropertyOptional({
    description: '`manual`: the caller writes the virtual user\'s messages. `model`: a model configuration plays the virtual user (POST …/drive); not allowed on an accelerated-line campaign (manual-only rule, 409).',
    enum: EXPLORATION_MODES,
    default: 'manual',
  })
  @IsOptional() @IsIn(EXPLORATION_MODES)
  mode?: ExplorationMode;

  @ApiPropertyOptional({ description: 'Required for mode `model`, refused otherwise: an enabled chat model configuration that plays the virtual user.', format: 'uuid' })
  @IsOptional() @IsUUID()
  model_config_id?: string;
}

/** Body of `POST /api/exploration/sessions/{id}/messages`. */
export class SendExplorationMessageDto {
  @ApiProperty({ description: 'The virtual user\'s message, delivered to the campaign\'s target through its channel. Longer than EVAL_EXPLORATION_MESSAGE_MAX_CHARS → 413.', example: 'Hi, my flight was cancelled. Can you rebook me?' })
  @IsString() @MinLength(1)
  message: string;
}

/** Body of `POST /api/exploration/sessions/{id}/drive`. */
export class DriveExplorationSessionDto {
  @ApiPropertyOptional({ description: 'Most turns this call plays (default and upper bound: EVAL_EXPLORATION_MAX_DRIVE_TURNS; above it → 400). The session\'s turn budget still applies.', minimum: 1, maximum: MAX_DRIVE_TURNS_BOUND })
  @IsOptional() @IsInt() @Min(1) @Max(MAX_DRIVE_TURNS_BOUND)
  max_turns?: number;
}

/** Body of `POST /api/exploration/sessions/{id}/close`. */
export class CloseExplorationSessionDto {
  @ApiPropertyOptional({ description: 'The outcome as the caller judged it; omitted: the driving model\'s stop marker, else derived (error / budget_exhausted / abandoned).', enum: CALLER_OUTCOMES })
  @IsOptional() @IsIn(CALLER_OUTCOMES)
  outcome?: CallerOutcome;

  @ApiPropertyOptional({ description: 'Free-text observations kept in the experience record.', maxLength: MAX_NOTES_CHARS })
  @IsOptional() @IsString() @MaxLength(MAX_NOTES_CHARS)
  notes?: string;
}

/** Sort fields of `GET /api/exploration/sessions`: field → entity property; used by the query's sort and the service's toOrder. */
export const EXPLORATION_SESSION_SORT_FIELDS = { startedAt: 'startedAt', closedAt: 'closedAt' } as const;

/** Query of `GET /api/exploration/sessions`. */
export class ExplorationSessionQueryDto extends PageBoundsQueryDto {
  @SortParam(EXPLORATION_SESSION_SORT_FIELDS, ['startedAt,desc'])
  sort?: string[];

  @ApiProperty({ description: 'The campaign whose sessions to list.', format: 'uuid' })
  @IsUUID()
  campaign_id: string;

  @ApiPropertyOptional({ description: 'Only sessions in this status.', enum: EXPLORATION_SESSION_STATUSES })
  @IsOptional() @IsIn(EXPLORATION_SESSION_STATUSES)
  status?: ExplorationSessionStatus;
}

/** One turn of a session. */
export class ExplorationMessageDto {
  @ApiProperty({ description: '0-based turn index in the session.' }) turn_index: number;
  @ApiProperty({ description: 'Who wrote the message: the caller or the driving model.', enum: ['manual', 'model'] }) author: 'manual' | 'model';
  @ApiProperty({ description: 'The virtual user\'s message.' }) message: string;
  @ApiProperty({ description: 'The target\'s reply; null when it failed, timed out or is still pending.', nullable: true, type: String }) reply: string | null;
  @ApiProperty({ description: 'Reply latency, ms.', nullable: true, type: Number }) latency_ms: number | null;
  @ApiProperty({ description: 'Why no reply came (the turn still counts).', nullable: true, type: String }) error: string | null;
  @ApiProperty({ description: 'When the message was handed to the target (ISO 8601).', format: 'date-time' }) delivered_at: string;
  @ApiProperty({ description: 'When the reply or failure came back; null while in flight (ISO 8601).', nullable: true, type: String, format: 'date-time' }) completed_at: string | null;
}

/** A notable turn in an experience record. */
export class NotableReplyDto {
  @ApiProperty({ description: 'Turn index.' }) turn_index: number;
  @ApiProperty({ description: 'Why it is notable, most serious first.', enum: NOTABLE_REASONS, isArray: true }) reasons: NotableReason[];
  @ApiProperty({ description: 'The virtual user\'s message (cut to EVAL_EXPLORATION_EXCERPT_CHARS).' }) message: string;
  @ApiProperty({ description: 'The reply (cut), null when none.', nullable: true, type: String }) reply: string | null;
  @ApiProperty({ description: 'Reply latency, ms.', nullable: true, type: Number }) latency_ms: number | null;
  @ApiProperty({ description: 'Delivery error.', nullable: true, type: String }) error: string | null;
}

/** The normalised experience record stored at close. */
export class ExperienceRecordDto implements ExperienceRecord {
  @ApiProperty({ description: 'The virtual user\'s persona.' }) persona: string;
  @ApiProperty({ description: 'The virtual user\'s goal.' }) goal: string;
  @ApiProperty({ description: 'Session mode.', enum: EXPLORATION_MODES }) mode: string;
  @ApiProperty({ description: 'Turns used (messages delivered, with or without a reply).' }) turns: number;
  @ApiProperty({ description: 'The session\'s turn budget (turns_per_session) at close.' }) turn_limit: number;
  @ApiProperty({ description: 'Turns that got a reply.' }) replies: number;
  @ApiProperty({ description: 'Turns whose delivery failed.' }) errors: number;
  @ApiProperty({
    description: '`goal_reached` (caller or `[[DONE]]`), `abandoned` (caller, `[[GIVE_UP]]`, or closed early), `budget_exhausted` (all turns used, no verdict), `error` (last turn got no reply, no verdict).',
    enum: EXPLORATION_OUTCOMES,
  })
  outcome: ExplorationOutcome;
  @ApiProperty({ description: 'Where the outcome came from.', enum: ['caller', 'stop_marker', 'derived'] }) outcome_source: OutcomeSource;
  @ApiProperty({ description: 'Median reply latency, ms.', nullable: true, type: Number }) latency_p50_ms: number | null;
  @ApiProperty({ description: 'Slowest reply latency, ms.', nullable: true, type: Number }) latency_max_ms: number | null;
  @ApiProperty({ description: 'From start to close, ms.' }) duration_ms: number;
  @ApiProperty({ description: 'The caller\'s notes.', nullable: true, type: String }) notes: string | null;
  @ApiProperty({ description: 'Notable turns (errors, no reply, slowest, refusals, empty or repeated replies), by turn index; at most EVAL_EXPLORATION_NOTABLE_REPLIES_MAX.', type: [NotableReplyDto] })
  notable_replies: NotableReplyDto[];
}

/** An exploration session (without its messages). */
export class ExplorationSessionDto {
  @ApiProperty({ description: 'Session id.', format: 'uuid' }) id: string;
  @ApiProperty({ description: 'Campaign id.', format: 'uuid' }) campaign_id: string;
  @ApiProperty({ description: 'The virtual user\'s persona.' }) persona: string;
  @ApiProperty({ description: 'The virtual user\'s goal.' }) goal: string;
  @ApiProperty({ description: 'Who writes the virtual user\'s messages.', enum: EXPLORATION_MODES }) mode: ExplorationMode;
  @ApiProperty({ description: 'Model configuration playing the virtual user (mode `model`).', nullable: true, type: String, format: 'uuid' }) model_config_id: string | null;
  @ApiProperty({ description: '`open` → `closed`.', enum: EXPLORATION_SESSION_STATUSES }) status: ExplorationSessionStatus;
  @ApiProperty({ description: 'Turns used (a turn counts once delivered, even without a reply).' }) turns_used: number;
  @ApiProperty({ description: 'The campaign\'s effective turns_per_session now.' }) turn_limit: number;
  @ApiProperty({ description: 'max(0, turn_limit − turns_used); always 0 once closed.' }) turns_left: number;
  @ApiProperty({ description: 'The stop marker the driving model wrote: `done` ([[DONE]]) or `give_up` ([[GIVE_UP]]).', nullable: true, enum: ['done', 'give_up'] }) stop_marker: StopKind | null;
  @ApiProperty({ description: 'Started (ISO 8601, database clock).', format: 'date-time' }) started_at: string;
  @ApiProperty({ description: 'Closed (ISO 8601).', nullable: true, type: String, format: 'date-time' }) closed_at: string | null;
  @ApiProperty({ description: 'The experience record, once closed.', nullable: true, type: ExperienceRecordDto }) experience: ExperienceRecordDto | null;
}

/** A session with all its turns. */
export class ExplorationSessionDetailDto extends ExplorationSessionDto {
  @ApiProperty({ description: 'Turns in order.', type: [ExplorationMessageDto] }) messages: ExplorationMessageDto[];
}

/** Answer of `POST …/messages`: the stored turn and what is left of the session's budget. */
export class ExplorationTurnDto {
  @ApiProperty({ description: 'Session id.', format: 'uuid' }) session_id: string;
  @ApiProperty({ description: 'The stored turn; `error` set when the target failed or timed out (the turn still counts).', type: ExplorationMessageDto }) turn: ExplorationMessageDto;
  @ApiProperty({ description: 'Turns used after this one.' }) turns_used: number;
  @ApiProperty({ description: 'Turns left in the session.' }) turns_left: number;
}

/** Why a drive call stopped. */
export const DRIVE_STOPS = ['stop_marker', 'turn_budget', 'max_turns', 'target_error', 'model_error', 'interrupted'] as const;
export type DriveStop = (typeof DRIVE_STOPS)[number];

/** Answer of `POST …/drive`. */
export class DriveResultDto {
  @ApiProperty({
    description:
      '`stop_marker` the model wrote [[DONE]] or [[GIVE_UP]]; `turn_budget` the session used all its turns; `max_turns` this call played its max_turns; ' +
      '`target_error` the target failed or timed out (the turn counts); `model_error` the model failed, timed out or wrote nothing usable; ' +
      '`interrupted` the session was closed or the campaign stopped running meanwhile.',
    enum: DRIVE_STOPS,
  })
  stopped_by: DriveStop;
  @ApiProperty({ description: 'Readable detail of a model error or interruption.', nullable: true, type: String }) detail: string | null;
  @ApiProperty({ description: 'Turns this call delivered, in order.', type: [ExplorationMessageDto] }) turns: ExplorationMessageDto[];
  @ApiProperty({ description: 'The session after the call.', type: ExplorationSessionDto }) session: ExplorationSessionDto;
}

/** Maps a message row. */
export function toExplorationMessageDto(row: ExplorationMessageEntity): ExplorationMessageDto {
  return {
    turn_index: row.turnIndex,
    author: row.author,
    message: row.message,
    reply: row.reply,
    latency_ms: row.latencyMs,
    error: row.error,
    delivered_at: row.deliveredAt.toISOString(),
    completed_at: row.completedAt?.toISOString() ?? null,
  };
}

/**
 * Maps a session row.
 * @param budget the campaign's effective budget now (for `turn_limit` / `turns_left`)
 */
export function toExplorationSessionDto(row: ExplorationSessionEntity, budget: ExplorationBudget): ExplorationSessionDto {
  return {
    id: row.id,
    campaign_id: row.campaignId,
    persona: row.persona,
    goal: row.goal,
    mode: row.mode,
    model_config_id: row.modelConfigId,
    status: row.status,
    turns_used: row.turnsUsed,
    turn_limit: row.experience?.turn_limit ?? budget.turnsPerSession,
    turns_left: row.status === 'closed' ? 0 : Math.max(0, budget.turnsPerSession - row.turnsUsed),
    stop_marker: row.stopMarker,
    started_at: row.startedAt.toISOString(),
    closed_at: row.closedAt?.toISOString() ?? null,
    experience: row.experience,
  };
}
