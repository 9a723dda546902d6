import { BadRequestException, ConflictException, HttpStatus, Inject, Injectable, NotFoundException, PayloadTooLargeException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { ProblemException } from '../../common/http/problem-details';
import { Page, toOrder, toPage } from '../../common/paging/page';
import { OutboundHttp } from '../../common/outbound/outbound.service';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { createChatModel } from '../../llm/chat-model';
import { CampaignEntity } from '../campaigns/campaign.entity';
import { effectiveBudget, ExplorationBudget } from '../campaigns/exploration-budget';
import { ModelConfigEntity } from '../model-configs/model-config.entity';
import { ChannelError, ChatTurn, TargetChannel } from '../targets/channels';
import { TargetEntity } from '../targets/target.entity';
import { TargetsService } from '../targets/targets.service';
import { normaliseExperience } from './experience-record';
import {
  EXPLORATION_SESSION_SORT_FIELDS,
  CloseExplorationSessionDto,
  CreateExplorationSessionDto,
  DriveExplorationSessionDto,
  DriveResultDto,
  DriveStop,
  ExplorationMessageDto,
  ExplorationSessionDetailDto,
  ExplorationSessionDto,
  ExplorationSessionQueryDto,
  ExplorationTurnDto,
  SendExplorationMessageDto,
  toExplorationMessageDto,
  toExplorationSessionDto,
} from './exploration.dto';
import { ExplorationMessageEntity } from './exploration-message.entity';
import { ExplorationMode, ExplorationSessionEntity } from './exploration-session.entity';
import { BudgetRefusal, checkSessionBudget, checkTurnBudget } from './session-budget';
import { detectStopMarker } from './stop-marker';
import { buildVirtualUserPrompt } from './virtual-user';
import { ListPager } from '../../common/paging/list-pager';

/**
 * The 409 of a budget refusal (evaluation-platform.md, Errors: "Exploration session over budget … 409 with a readable
 * reason"). The problem body carries the reason as `detail` plus `limit`, `limit_value`, `used` and `next_allowed_at`.
 */
export function budgetConflict(refusal: BudgetRefusal): ProblemException {
  return new ProblemException(HttpStatus.CONFLICT, refusal.reason, {
    limit: refusal.limit,
    limit_value: refusal.limitValue,
    used: refusal.used,
    next_allowed_at: refusal.nextAllowedAt?.toISOString() ?? null,
  });
}

/** True when the campaign has a seed set (rule 3: null or empty seed lists = opted out of exploration). */
export function hasSeedSet(campaign: Pick<CampaignEntity, 'seedPersonas' | 'seedGoals'>): boolean {
  return Boolean(campaign.seedPersonas?.length && campaign.seedGoals?.length);
}

/** A turn reserved for delivery: the stored row, the channel and the conversation so far. */
interface ReservedTurn {
  row: ExplorationMessageEntity;
  channel: TargetChannel;
  history: ChatTurn[];
  turnsUsed: number;
  turnsPerSession: number;
}

/**
 * Exploration sessions (evaluation-platform.md, Resources: Exploration session; Errors; Limits; issue 4, Exploration):
 * create under the campaign's budget, send virtual-user messages to the target, let a model drive the virtual user,
 * close with a normalised experience record.
 *
 * Concurrency: creating a session locks the campaign row (`FOR UPDATE`) in the transaction that counts the window's
 * sessions and inserts the new one; a message locks the session row while it checks and reserves its turn (the message
 * row is written and `turns_used` incremented in that transaction), then delivers to the target with no transaction
 * open, then stores the reply. So parallel requests cannot pass a budget together, and a slow target holds no lock.
 * Times that budgets compare come from the database clock (`clock_timestamp()`), the same for every app instance.
 */
@Injectable()
export class ExplorationService {
  constructor(
    private readonly pager: ListPager,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly targets: TargetsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    /** Virtual-user model calls go through the evaluation models' outbound client (EVAL_MODEL_*; issue 19 item 1). */
    private readonly outboundHttp: OutboundHttp,
  ) {}

  /**
   * Opens a session for a campaign.
   * @throws BadRequestException (400) mode `model` without model_config_id, model_config_id on a manual session, or a
   *   model configuration that is unknown, disabled or not a chat model
   * @throws NotFoundException (404) unknown campaign
   * @throws ConflictException/ProblemException (409) campaign not running, opted out (no seed set), manual-only rule
   *   (accelerated line), or over budget (sessions per window, minimum interval, outside the window)
   */
  async create(input: CreateExplorationSessionDto): Promise<ExplorationSessionDto> {
    const mode: ExplorationMode = input.mode ?? 'manual';
    if (mode === 'model' && !input.model_config_id) {
      throw new BadRequestException('A model-driven session (mode "model") needs model_config_id: the model configuration that plays the virtual user.');
    }
    if (mode === 'manual' && input.model_config_id) {
      throw new BadRequestException('model_config_id is only for model-driven sessions (mode "model"); a manual session takes its messages from the caller.');
    }
    const { session, budget } = await this.dataSource.transaction(async (manager) => {
      const campaign = await manager.findOne(CampaignEntity, { where: { id: input.campaign_id }, lock: { mode: 'pessimistic_write' } });
      if (!campaign) throw new NotFoundException(`No campaign ${input.campaign_id}.`);
      this.assertRunning(campaign, 'opened');
      if (!hasSeedSet(campaign)) {
        throw new ConflictException(`Campaign ${campaign.id} has opted out of exploration (it has no seed personas and seed goals), so no exploration session can be opened for it.`);
      }
      if (campaign.line === 'accelerated' && mode !== 'manual') {
        throw new ConflictException(
          `Manual-only rule: campaign ${campaign.id} is on the accelerated line, where exploration sessions must be manual (mode "manual"); mode "${mode}" is not allowed.`,
        );
      }
      if (input.model_config_id) await this.findVirtualUserModel(manager, input.model_config_id, (detail) => new BadRequestException(detail));

      const budget = this.budgetOf(campaign);
      const [facts]: { now: Date; in_window: string; last_started: Date | null }[] = await manager.query(
        `SELECT clock_timestamp() AS now,
                count(*) FILTER (WHERE started_at >= $2 AND started_at < $3) AS in_window,
                max(started_at) AS last_started
           FROM eval_exploration_session WHERE campaign_id = $1`,
        [campaign.id, campaign.windowStart, campaign.windowEnd],
      );
      const decision = checkSessionBudget({
        budget,
        windowStart: campaign.windowStart,
        windowEnd: campaign.windowEnd,
        sessionsInWindow: Number(facts.in_window),
        lastSessionStartedAt: facts.last_started,
        now: facts.now,
      });
      if (!decision.allowed) throw budgetConflict(decision);
      const row = manager.create(ExplorationSessionEntity, {
        campaignId: campaign.id,
        persona: input.persona,
        goal: input.goal,
        mode,
        modelConfigId: input.model_config_id ?? null,
        status: 'open',
        turnsUsed: 0,
        stopMarker: null,
        startedAt: facts.now,
        closedAt: null,
        experience: null,
        patrolSequence: null,
      });
      return { session: await manager.save(row), budget };
    });
    return toExplorationSessionDto(session, budget);
  }

  /** A campaign's sessions, newest first; sortable by `startedAt`, `closedAt`. @throws NotFoundException (404) unknown campaign */
  async list(query: ExplorationSessionQueryDto): Promise<Page<ExplorationSessionDto>> {
    const campaign = await this.dataSource.getRepository(CampaignEntity).findOneBy({ id: query.campaign_id });
    if (!campaign) throw new NotFoundException(`No campaign ${query.campaign_id}.`);
    const order = toOrder(query.sort, EXPLORATION_SESSION_SORT_FIELDS, { startedAt: 'DESC' });
    const { rows, ...slice } = await this.pager.find(this.dataSource.getRepository(ExplorationSessionEntity), {
      where: { campaignId: campaign.id, ...(query.status ? { status: query.status } : {}) },
      order,
    }, query);
    const budget = this.budgetOf(campaign);
    return toPage(rows.map((row) => toExplorationSessionDto(row, budget)), slice, query);
  }

  /** A session with all its turns. @throws NotFoundException (404) */
  async get(id: string): Promise<ExplorationSessionDetailDto> {
    const manager = this.dataSource.manager;
    const session = await manager.findOneBy(ExplorationSessionEntity, { id });
    if (!session) throw new NotFoundException(`No exploration session ${id}.`);
    return this.detail(manager, session);
  }

  /**
   * Delivers one virtual-user message to the campaign's target and stores the turn (message, reply, latency or error).
   * The turn is consumed once delivered, also when the target fails or times out (then `turn.error` says why).
   * @throws NotFoundException (404); PayloadTooLargeException (413) message over EVAL_EXPLORATION_MESSAGE_MAX_CHARS;
   *   ConflictException/ProblemException (409) session closed, campaign not running, turns_per_session used up
   */
  async sendMessage(id: string, input: SendExplorationMessageDto): Promise<ExplorationTurnDto> {
    this.assertMessageSize(input.message);
    const reserved = await this.reserveTurn(id, input.message, 'manual');
    const row = await this.deliver(id, reserved);
    return { session_id: id, turn: toExplorationMessageDto(row), turns_used: reserved.turnsUsed, turns_left: Math.max(0, reserved.turnsPerSession - reserved.turnsUsed) };
  }

  /**
   * Lets the session's model configuration play the virtual user: persona + goal + transcript → next message,
   * delivered like a manual one, until the model writes a stop marker ([[DONE]] / [[GIVE_UP]]; text before it is still
   * sent), the session's turns run out, `max_turns` turns were played, the target fails, or the model fails.
   * No transaction stays open across model or target calls.
   * @throws NotFoundException (404); BadRequestException (400) max_turns above EVAL_EXPLORATION_MAX_DRIVE_TURNS;
   *   ConflictException/ProblemException (409) not a model-driven session, closed, campaign not running, no turns left,
   *   model configuration gone or disabled
   */
  async drive(id: string, input: DriveExplorationSessionDto): Promise<DriveResultDto> {
    const limit = this.config.evaluation.exploration.maxDriveTurns;
    if (input.max_turns !== undefined && input.max_turns > limit) {
      throw new BadRequestException(`max_turns may be at most ${limit} (EVAL_EXPLORATION_MAX_DRIVE_TURNS); the session's own turn budget applies as well.`);
    }
    const maxTurns = input.max_turns ?? limit;
    const manager = this.dataSource.manager;
    const session = await manager.findOneBy(ExplorationSessionEntity, { id });
    if (!session) throw new NotFoundException(`No exploration session ${id}.`);
    if (session.mode !== 'model' || !session.modelConfigId) {
      throw new ConflictException(`Exploration session ${id} is manual: its messages come from the caller (POST …/messages). Only a model-driven session (mode "model") can be driven.`);
    }
    this.assertOpen(session);
    const campaign = await this.campaignOf(manager, session);
    this.assertRunning(campaign, 'driven');
    const first = checkTurnBudget(session.turnsUsed, this.budgetOf(campaign).turnsPerSession);
    if (!first.allowed) throw budgetConflict(first);
    const config = await this.findVirtualUserModel(manager, session.modelConfigId, (detail) => new ConflictException(detail));
    const model = createChatModel({ baseUrl: config.baseUrl, model: config.model, apiKey: config.apiKey }, this.outboundHttp.client(this.config.evaluationOutbound.model));

    const delivered: ExplorationMessageDto[] = [];
    let stoppedBy: DriveStop | null = null;
    let detail: string | null = null;
    for (let played = 0; played < maxTurns && !stoppedBy; played++) {
      const current = await manager.findOneByOrFail(ExplorationSessionEntity, { id });
      const turnsLeft = this.budgetOf(campaign).turnsPerSession - current.turnsUsed;
      if (turnsLeft <= 0) {
        stoppedBy = 'turn_budget';
        break;
      }
      const transcript = await manager.find(ExplorationMessageEntity, { where: { sessionId: id }, order: { turnIndex: 'ASC' } });
      let answer: string;
      try {
        answer = await model.complete(buildVirtualUserPrompt(session.persona, session.goal, transcript, turnsLeft), { timeoutMs: this.config.evaluation.exploration.modelTimeoutMs });
      } catch (error) {
        stoppedBy = 'model_error';
        detail = `The virtual-user model failed: ${(error as Error).message}`;
        break;
      }
      const { message, stop } = detectStopMarker(answer);
      if (stop) await manager.update(ExplorationSessionEntity, { id, status: 'open' }, { stopMarker: stop });
      if (message) {
        if (message.length > this.config.evaluation.exploration.messageMaxChars) {
          stoppedBy = 'model_error';
          detail = `The virtual-user model wrote ${message.length} characters; messages may have at most ${this.config.evaluation.exploration.messageMaxChars} (EVAL_EXPLORATION_MESSAGE_MAX_CHARS).`;
          break;
        }
        let reserved: ReservedTurn;
        try {
          reserved = await this.reserveTurn(id, message, 'model');
        } catch (error) {
          if (!(error instanceof ConflictException || error instanceof ProblemException) || delivered.length === 0) throw error;
          const refusal = error instanceof ProblemException && error.extensions.limit === 'turns_per_session';
          stoppedBy = refusal ? 'turn_budget' : 'interrupted';
          detail = refusal ? null : error.message;
          break;
        }
        const row = await this.deliver(id, reserved);
        delivered.push(toExplorationMessageDto(row));
        if (row.error !== null) {
          stoppedBy = 'target_error';
          detail = row.error;
        }
      }
      if (stop && !stoppedBy) stoppedBy = 'stop_marker';
      else if (!message && !stop) {
        stoppedBy = 'model_error';
        detail = 'The virtual-user model returned an empty message.';
      }
    }
    const after = await manager.findOneByOrFail(ExplorationSessionEntity, { id });
    const budget = this.budgetOf(await this.campaignOf(manager, after));
    if (!stoppedBy) stoppedBy = after.turnsUsed >= budget.turnsPerSession ? 'turn_budget' : 'max_turns';
    return { stopped_by: stoppedBy, detail, turns: delivered, session: toExplorationSessionDto(after, budget) };
  }

  /**
   * Closes a session and stores its normalised experience record (experience-record.ts). Allowed whatever the
   * campaign's state. A turn still in flight is recorded as without reply.
   * @throws NotFoundException (404); ConflictException (409) already closed
   */
  async close(id: string, input: CloseExplorationSessionDto): Promise<ExplorationSessionDetailDto> {
    return this.dataSource.transaction(async (manager) => {
      const session = await manager.findOne(ExplorationSessionEntity, { where: { id }, lock: { mode: 'pessimistic_write' } });
      if (!session) throw new NotFoundException(`No exploration session ${id}.`);
      this.assertOpen(session);
      const campaign = await manager.findOneBy(CampaignEntity, { id: session.campaignId });
      const budget = campaign ? this.budgetOf(campaign) : this.config.evaluation.explorationBudget;
      const messages = await manager.find(ExplorationMessageEntity, { where: { sessionId: id }, order: { turnIndex: 'ASC' } });
      const [{ now }]: { now: Date }[] = await manager.query('SELECT clock_timestamp() AS now');
      const { notableRepliesMax, excerptChars } = this.config.evaluation.exploration;
      session.experience = normaliseExperience({
        persona: session.persona,
        goal: session.goal,
        mode: session.mode,
        turnsUsed: session.turnsUsed,
        turnsPerSession: budget.turnsPerSession,
        turns: messages.map((row) => ({ turnIndex: row.turnIndex, message: row.message, reply: row.reply, latencyMs: row.latencyMs, error: row.error, completed: row.completedAt !== null })),
        stopMarker: session.stopMarker,
        requestedOutcome: input.outcome ?? null,
        notes: input.notes ?? null,
        startedAt: session.startedAt,
        closedAt: now,
        limits: { maxNotableReplies: notableRepliesMax, excerptChars },
      });
      session.status = 'closed';
      session.closedAt = now;
      await manager.save(session);
      return this.detail(manager, session, budget);
    });
  }

  /**
   * Checks and reserves the session's next turn in one transaction holding the session row lock: the session is open,
   * the campaign running, a turn left, the target callable; then writes the message row (delivered_at = now) and
   * increments `turns_used`. From here the turn counts, whatever the target does.
   */
  private async reserveTurn(id: string, message: string, author: 'manual' | 'model'): Promise<ReservedTurn> {
    return this.dataSource.transaction(async (manager) => {
      const session = await manager.findOne(ExplorationSessionEntity, { where: { id }, lock: { mode: 'pessimistic_write' } });
      if (!session) throw new NotFoundException(`No exploration session ${id}.`);
      this.assertOpen(session);
      const campaign = await this.campaignOf(manager, session);
      this.assertRunning(campaign, 'continued');
      const { turnsPerSession } = this.budgetOf(campaign);
      const decision = checkTurnBudget(session.turnsUsed, turnsPerSession);
      if (!decision.allowed) throw budgetConflict(decision);
      const target = await manager.findOneBy(TargetEntity, { id: campaign.targetId });
      if (!target) throw new ConflictException(`The campaign's target ${campaign.targetId} no longer exists; exploration messages cannot be delivered.`);
      const channel = this.targets.channelFor(target);

      const earlier = await manager.find(ExplorationMessageEntity, { where: { sessionId: id }, order: { turnIndex: 'ASC' } });
      const history: ChatTurn[] = [];
      for (const turn of earlier) {
        if (turn.completedAt === null) continue; // in flight: not part of the conversation yet
        history.push({ role: 'user', content: turn.message });
        if (turn.reply !== null) history.push({ role: 'assistant', content: turn.reply });
      }
      const [{ now }]: { now: Date }[] = await manager.query('SELECT clock_timestamp() AS now');
      const row = await manager.save(
        manager.create(ExplorationMessageEntity, {
          sessionId: id,
          turnIndex: session.turnsUsed,
          message,
          author,
          reply: null,
          latencyMs: null,
          error: null,
          deliveredAt: now,
          completedAt: null,
        }),
      );
      await manager.update(ExplorationSessionEntity, { id }, { turnsUsed: session.turnsUsed + 1 });
      return { row, channel, history, turnsUsed: session.turnsUsed + 1, turnsPerSession };
    });
  }

  /**
   * Sends a reserved turn through the target's channel, bounded by EVAL_EXPLORATION_REPLY_TIMEOUT_MS (the target's own
   * timeout applies too), and stores the reply and its latency, or the error. Never throws for a target failure.
   */
  private async deliver(sessionId: string, reserved: ReservedTurn): Promise<ExplorationMessageEntity> {
    const timeoutMs = this.config.evaluation.exploration.replyTimeoutMs;
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const { row } = reserved;
    try {
      const reply = await reserved.channel.send({ message: row.message, history: reserved.history, sessionId, signal: controller.signal });
      row.reply = reply.output;
      row.latencyMs = reply.latencyMs;
    } catch (error) {
      row.error = timedOut
        ? `no reply within ${timeoutMs} ms (EVAL_EXPLORATION_REPLY_TIMEOUT_MS)`
        : error instanceof ChannelError
          ? error.message
          : `unexpected error: ${(error as Error).message}`;
    } finally {
      clearTimeout(timer);
    }
    const [{ now }]: { now: Date }[] = await this.dataSource.query('SELECT clock_timestamp() AS now');
    row.completedAt = now;
    await this.dataSource.getRepository(ExplorationMessageEntity).update({ id: row.id }, { reply: row.reply, latencyMs: row.latencyMs, error: row.error, completedAt: now });
    return row;
  }

  /** The session with its turns, as returned. */
  private async detail(manager: EntityManager, session: ExplorationSessionEntity, budget?: ExplorationBudget): Promise<ExplorationSessionDetailDto> {
    const effective = budget ?? this.budgetOf(await this.campaignOf(manager, session));
    const messages = await manager.find(ExplorationMessageEntity, { where: { sessionId: session.id }, order: { turnIndex: 'ASC' } });
    return { ...toExplorationSessionDto(session, effective), messages: messages.map(toExplorationMessageDto) };
  }

  /** The campaign's effective budget (rule 4). */
  private budgetOf(campaign: CampaignEntity): ExplorationBudget {
    return effectiveBudget(this.config.evaluation.explorationBudget, campaign.budgetOverride);
  }

  /** The session's campaign. @throws ConflictException (409) when it no longer exists */
  private async campaignOf(manager: EntityManager, session: ExplorationSessionEntity): Promise<CampaignEntity> {
    const campaign = await manager.findOneBy(CampaignEntity, { id: session.campaignId });
    if (!campaign) throw new ConflictException(`The session's campaign ${session.campaignId} no longer exists.`);
    return campaign;
  }

  /** @throws ConflictException (409) unless the campaign is `running` */
  private assertRunning(campaign: CampaignEntity, what: 'opened' | 'continued' | 'driven'): void {
    if (campaign.status === 'running') return;
    const hint = campaign.status === 'draft' ? ' Start the campaign first.' : '';
    const subject = what === 'opened' ? 'exploration sessions can only be opened' : what === 'driven' ? 'sessions can only be driven' : 'exploration messages can only be sent';
    throw new ConflictException(`Campaign ${campaign.id} is ${campaign.status}: ${subject} while it is running.${hint}`);
  }

  /** @throws ConflictException (409) when the session is closed */
  private assertOpen(session: ExplorationSessionEntity): void {
    if (session.status === 'open') return;
    throw new ConflictException(`Exploration session ${session.id} was closed at ${session.closedAt?.toISOString()}; open a new session to keep exploring.`);
  }

  /** 413 when a virtual-user message is longer than EVAL_EXPLORATION_MESSAGE_MAX_CHARS. */
  private assertMessageSize(message: string): void {
    const max = this.config.evaluation.exploration.messageMaxChars;
    if (message.length > max) throw new PayloadTooLargeException(`The message has ${message.length} characters; at most ${max} are allowed (EVAL_EXPLORATION_MESSAGE_MAX_CHARS).`);
  }

  /**
   * An enabled chat model configuration that can play a virtual user.
   * @param fail builds the error (400 at creation, 409 when driving a session whose configuration changed since)
   */
  private async findVirtualUserModel(manager: EntityManager, id: string, fail: (detail: string) => Error): Promise<ModelConfigEntity> {
    const config = await manager.findOneBy(ModelConfigEntity, { id });
    if (!config) throw fail(`No model configuration ${id}: a model-driven session needs an existing model configuration.`);
    if (!config.enabled) throw fail(`Model configuration ${id} is disabled; enable it or choose another one to play the virtual user.`);
    if (config.type !== 'chat') throw fail(`Model configuration ${id} is of type "${config.type}"; only a chat model can play the virtual user.`);
    return config;
  }
}
