import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { OutboundHttp } from '../../common/outbound/outbound.service';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { JobHandler } from '../../jobs/job-handler.decorator';
import { RunMetrics } from './run-metrics';
import { createChatModel } from '../../llm/chat-model';
import { ModelConfigEntity } from '../model-configs/model-config.entity';
import { caseVerdict } from '../rules/case-verdict';
import { evaluateRule, validateRuleDefaults } from '../rules/rule-evaluator';
import type { RubricJudge, RuleDefaults } from '../rules/rule.types';
import { settleCampaignOfRun } from '../campaigns/campaign-settlement';
import { ChannelError, ChatTurn, sendWithRetry, TargetChannel } from '../targets/channels';
import { TargetEntity } from '../targets/target.entity';
import { TargetsService } from '../targets/targets.service';
import { CaseStatus, TranscriptTurn } from './case-result.entity';
import { type Pulled, runBoundedFrom } from './bounded-pool';
import { pendingRunItems, QueryRows, RunWorkItem } from './run-case-pages';
import { RunResultWriter, STORE_CASE_RESULTS_SQL, StoredCaseResult } from './run-result-writer';
import { summariseStoredRun } from './run-summary.query';
import { RUN_EVALUATION } from './run-jobs';
import { LIVE_RUN_STATUSES, RunEntity } from './run.entity';
import { createRubricJudge } from './rubric-judge';
import { RunWebhook } from './run-webhook';
import { CASE_ERROR_MAX_CHARS, cutStored, RULE_REASON_MAX_CHARS, targetReplyProblem } from './run-caps';
import { classifyDatabaseError } from '../../common/http/database-problem';
import { retryWhileDatabaseUnavailable } from '../../database/retry-unavailable';
import { CLAIM_RUN_SQL, newRunLeaseOwner, RELEASE_RUN_LEASE_SQL, RENEW_RUN_LEASE_SQL, returnedRows } from './run-lease';

/** Attempts per target call and backoff bounds (ms); Retry-After is honoured up to the cap. */
const TARGET_RETRY = { attempts: 3, baseDelayMs: 500, maxDelayMs: 10_000 };
/** How often a running run re-reads its status to notice a cancel (ms). */
const CANCEL_CHECK_MS = 1_000;

/** Thrown when the app stops mid-run: the job goes back to the queue and the run resumes on the next start. */
class RunInterruptedError extends Error {
  constructor(runId: string) {
    super(`Run ${runId} was interrupted by shutdown; it resumes when a worker picks it up again.`);
  }
}

type WorkItem = RunWorkItem;

/** One execution's hold on its run (see run-lease.ts). */
interface LeaseHold {
  owner: string;
  /** Set once a renewal found the lease gone (the sweeper handed the run to another worker). */
  lost: boolean;
}

/**
 * Executes runs (issue 3: Run). Cases go to the target through its channel with at most min(run concurrency,
 * target max_concurrency) in flight, read from the run's case rows in keyset pages (EVAL_RUN_CASE_PAGE_SIZE); finished
 * cases are stored with their rule verdicts by group commit (RunResultWriter: at once when idle, in batches of up to
 * EVAL_RUN_RESULT_BATCH_SIZE when busy), so the run's memory does not grow with its cases (issue 14 item 3).
 * A target error or timeout marks that case errored, never the run failed. The job is idempotent: after a
 * restart it resumes and skips every (case, repetition) already stored (also guarded by a unique index).
 *
 * The run lease (issue 19 acceptance 5, run-lease.ts): an execution first claims the run's lease, renews it every
 * EVAL_RUN_HEARTBEAT_MS and releases it when it stops, so a second job for the same run (the queue's retry, the
 * sweeper's re-queue) does nothing while the first holds it, and a killed instance's run is taken over by
 * RunLeaseSweeper within EVAL_RUN_LEASE_MS instead of the queue's 6-hour expiry. An execution that finds its lease
 * gone stops taking cases and ends quietly: the new holder finishes the run. Stored text is capped (run-caps.ts):
 * a target reply over EVAL_TARGET_REPLY_MAX_CHARS errors the case, judge answers over EVAL_JUDGE_ANSWER_MAX_CHARS
 * fail their rule.
 */
@Injectable()
export class RunExecutor implements OnModuleDestroy {
  private readonly logger = new Logger(RunExecutor.name);
  private stopping = false;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly targets: TargetsService,
    private readonly webhook: RunWebhook,
    /** Judge calls go through the evaluation models' outbound client (EVAL_MODEL_*; issue 19 item 1). */
    private readonly outboundHttp: OutboundHttp,
    private readonly metrics: RunMetrics,
  ) {}

  /** Stops taking new cases, so shutdown does not wait for whole runs (cases in flight still finish). */
  onModuleDestroy(): void {
    this.stopping = true;
  }

  @JobHandler(RUN_EVALUATION, { concurrency: 2, retryLimit: 3, retryDelaySeconds: 2, expireInSeconds: 6 * 3600 })
  async execute({ runId }: { runId: string }): Promise<void> {
    const runs = this.dataSource.getRepository(RunEntity);
    const found = await runs.findOneBy({ id: runId });
    if (!found || !LIVE_RUN_STATUSES.includes(found.status)) return;
    const { leaseMs, heartbeatMs } = this.config.evalRuns;
    const lease: LeaseHold = { owner: newRunLeaseOwner(), lost: false };
    const claimed = returnedRows(await this.dataSource.query(CLAIM_RUN_SQL, [runId, lease.owner, leaseMs]));
    if (claimed.length === 0) {
      this.logger.debug(`Run ${runId} is held by another worker (lease); this job ends.`);
      return;
    }
    const heartbeat = setInterval(() => {
      this.dataSource
        .query(RENEW_RUN_LEASE_SQL, [runId, lease.owner, leaseMs])
        .then((result: unknown) => {
          if (returnedRows(result).length === 0 && !lease.lost) {
            lease.lost = true;
            this.logger.warn(`Run ${runId}: the lease was taken over by another worker; this one stops taking cases.`);
          }
        })
        .catch((error: Error) => this.logger.warn(`Run ${runId}: could not renew the lease: ${error.message}`));
    }, heartbeatMs);
    heartbeat.unref();
    try {
      await this.metrics.inFlightWhile(() => this.executeHeld(runId, lease));
    } finally {
      clearInterval(heartbeat);
      await this.dataSource.query(RELEASE_RUN_LEASE_SQL, [runId, lease.owner, leaseMs]).catch((error: Error) => this.logger.warn(`Run ${runId}: could not release the lease: ${error.message} (it runs out after EVAL_RUN_LEASE_MS)`));
    }
  }

  /** The execution proper, while `lease` holds the run. */
  private async executeHeld(runId: string, lease: LeaseHold): Promise<void> {
    const run = await this.dataSource.getRepository(RunEntity).findOneBy({ id: runId });
    if (!run || run.status !== 'running') return;
    const startedAt = run.startedAt ?? new Date();
    try {
      const target = run.targetId ? await this.dataSource.getRepository(TargetEntity).findOneBy({ id: run.targetId }) : null;
      if (!target) throw new Error('The target was deleted before the run finished.');
      const channel = this.metrics.countingRetries(this.targets.channelFor(target));
      const judge = await this.judgeFor(run);
      // Cases are read in keyset pages and results written in batches (issue 14 item 3): memory is bounded by
      // concurrency × page size, never by the run's number of cases. A resumed run skips what is already stored.
      const query: QueryRows = (sql, parameters) => this.dataSource.query(sql, parameters);
      const { casePageSize, resultBatchSize } = this.config.evalRuns;
      const next = pendingRunItems(query, runId, run.caseCount, run.repeatCount, casePageSize);
      const writer = new RunResultWriter((batch) => this.storeResults(runId, batch, lease), resultBatchSize);
      let cancelled: boolean;
      try {
        const ruleDefaults = ruleDefaultsOf(run.llmConfig);
        cancelled = await this.runPool(next, Math.min(run.concurrency, target.maxConcurrency), runId, lease, (item) => this.runCase(run, channel, judge, ruleDefaults, item, writer));
      } catch (error) {
        // What was sent is recorded also when the pool stopped on an error; that error is the one reported.
        await writer.flush().catch((flushError: Error) => this.logger.warn(`Run ${runId}: could not store the last results: ${flushError.message}`));
        throw error;
      }
      await writer.flush();
      if (cancelled || lease.lost) return;
      if (this.stopping) throw new RunInterruptedError(runId);
      await this.complete(run, startedAt);
    } catch (error) {
      if (error instanceof RunInterruptedError || this.stopping) throw error; // retried by the queue, not a failed run
      if (lease.lost) return; // the new holder decides how the run ends
      // The database went away (issue 20): not the run's fault; the job's retry or the sweep resumes it.
      if (classifyDatabaseError(error)?.status === 503) throw error;
      this.logger.error(`Run ${runId} failed: ${(error as Error).message}`);
      await this.finish(runId, { status: 'failed', error: (error as Error).message, finishedAt: new Date() });
    }
  }

  /** Runs `work` over `items` with `concurrency` in flight; stops taking new items once the run is cancelled. @returns true when cancelled */
  private async runPool(next: () => Pulled<WorkItem>, concurrency: number, runId: string, lease: LeaseHold, work: (item: WorkItem) => Promise<void>): Promise<boolean> {
    let cancelled = false;
    let checkedAt = 0;
    /** Reads the run's status now. */
    const isCancelled = async () => {
      checkedAt = Date.now();
      // While the database is away no new case is sent (its result could not be recorded), and a failed check
      // must not abandon the cases in flight (their results wait in retryWhileDatabaseUnavailable) — issue 20.
      const current = await retryWhileDatabaseUnavailable(
        () => this.dataSource.getRepository(RunEntity).findOne({ where: { id: runId }, select: { id: true, status: true } }),
        { deadlineMs: Infinity, shouldStop: () => this.stopping || lease.lost },
      ).catch((error: unknown) => {
        if (classifyDatabaseError(error)?.status !== 503) throw error;
        return { status: 'running' as const }; // stopping or lease lost: the pool's own check ends the run
      });
      cancelled = current?.status !== 'running';
      return cancelled;
    };
    // Answered at once between status reads (no promise per case); a read once CANCEL_CHECK_MS passed.
    const shouldStop = (): boolean | Promise<boolean> => {
      if (this.stopping || lease.lost) return true;
      if (Date.now() - checkedAt <= CANCEL_CHECK_MS) return cancelled;
      return isCancelled().then((answer) => answer || this.stopping || lease.lost);
    };
    await runBoundedFrom(next, concurrency, shouldStop, work);
    return isCancelled();
  }

  /** Sends one case's turns, judges the last reply, hands the result to the run's writer. */
  private async runCase(run: RunEntity, channel: TargetChannel, judge: RubricJudge | undefined, ruleDefaults: RuleDefaults, item: WorkItem, writer: RunResultWriter): Promise<void> {
    const { testCase, repeatIndex } = item;
    const messages = testCase.turns ?? [testCase.input ?? ''];
    const history: ChatTurn[] = [];
    const transcript: TranscriptTurn[] = [];
    let status: CaseStatus = 'passed';
    let error: string | null = null;
    let output: string | null = null;
    let latencyMs: number | null = null;
    const maxReplyChars = this.config.evalRuns.targetReplyMaxChars;
    for (const message of messages) {
      try {
        const reply = await sendWithRetry(channel, { message, history: [...history], sessionId: `${run.id}:${testCase.id}:${repeatIndex}` }, TARGET_RETRY);
        const overCap = targetReplyProblem(reply.output, maxReplyChars);
        if (overCap) {
          // Stored text is capped (issue 19 item 2): the transcript keeps the reply's start, the case errors.
          transcript.push({ message, reply: cutStored(reply.output, maxReplyChars), latencyMs: reply.latencyMs });
          status = 'errored';
          error = overCap;
          latencyMs = reply.latencyMs;
          break;
        }
        transcript.push({ message, reply: reply.output, latencyMs: reply.latencyMs });
        history.push({ role: 'user', content: message }, { role: 'assistant', content: reply.output });
        output = reply.output;
        latencyMs = reply.latencyMs;
      } catch (caught) {
        transcript.push({ message, reply: null, latencyMs: null });
        status = 'errored';
        error = caught instanceof ChannelError ? caught.message : `Unexpected error: ${(caught as Error).message}`;
        break;
      }
    }
    const rules = status === 'errored' ? [] : await Promise.all(testCase.rules.map((rule) => evaluateRule(rule, { output: output ?? '', latencyMs: latencyMs ?? 0 }, judge, ruleDefaults)));
    // A judge answer with no readable verdict is a judge failure: the case is errored, never failed (issue 24).
    const unreadable = rules.find((rule) => rule.errored);
    if (unreadable) {
      status = 'errored';
      error = `judge failure (rule ${rules.indexOf(unreadable)}): ${unreadable.reason}`;
    }
    const verdict = status === 'errored' ? { pass: false, score: 0 } : caseVerdict(rules, testCase.threshold);
    if (status !== 'errored') status = verdict.pass ? 'passed' : 'failed';
    // The case was sent: record it once the database answers again rather than sending it a second time later
    // (issue 20 item 2), however long the outage, for as long as this execution holds the run (the sweep waits a
    // lease after an outage before taking runs over, so the heartbeat renews first) and the process is not stopping.
    // The writer stores it in a batch (storeResults).
    await writer.add({
      case_id: testCase.id,
      repeat_index: repeatIndex,
      position: item.position,
      status,
      output,
      latency_ms: latencyMs === null ? null : Math.round(latencyMs),
      score: status === 'errored' ? null : verdict.score,
      error: error === null ? null : cutStored(error, CASE_ERROR_MAX_CHARS),
      transcript,
      rules_passed: rules.filter((rule) => rule.pass).length,
      rules_total: rules.length,
      rules: rules.map((rule, ruleIndex) => ({ rule_index: ruleIndex, type: rule.type, pass: rule.pass, score: rule.score, weight: rule.weight, reason: cutStored(rule.reason, RULE_REASON_MAX_CHARS) })),
    });
    this.metrics.caseFinished(status);
  }

  /** Stores one batch of results (the writer's store), retried while the database is away (see runCase). */
  private async storeResults(runId: string, batch: StoredCaseResult[], lease: LeaseHold): Promise<void> {
    const json = JSON.stringify(batch);
    await retryWhileDatabaseUnavailable(() => this.dataSource.query(STORE_CASE_RESULTS_SQL, [runId, json]), {
      deadlineMs: Infinity,
      shouldStop: () => lease.lost || this.stopping,
    });
  }

  /** Stores the summary, computed by PostgreSQL from the stored case results, and marks the run completed. */
  private async complete(run: RunEntity, startedAt: Date): Promise<void> {
    const finishedAt = new Date();
    const summary = await summariseStoredRun((sql, parameters) => this.dataSource.query(sql, parameters), run.id, finishedAt.getTime() - startedAt.getTime());
    await this.finish(run.id, { status: 'completed', summary, finishedAt });
  }

  /** Ends a running run and schedules its webhook in the same transaction (only the run's first ending counts). */
  private async finish(runId: string, changes: Partial<Pick<RunEntity, 'status' | 'summary' | 'error' | 'finishedAt'>>): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const result = await manager.update(RunEntity, { id: runId, status: 'running' }, changes);
      if (result.affected) await this.webhook.schedule(runId, manager);
      if (result.affected) await settleCampaignOfRun(manager, runId); // the last run of a campaign to end completes it
    });
  }

  /**
   * The llm-rubric judge: the model configuration bound as `judge` in the scenario's model_bindings, else an
   * enabled chat configuration with purpose `judge`, else the analysis default; undefined when none (llm-rubric
   * rules then fail with that reason).
   */
  private async judgeFor(run: RunEntity): Promise<RubricJudge | undefined> {
    const configs = this.dataSource.getRepository(ModelConfigEntity);
    const boundId = typeof run.modelBindings.judge === 'string' ? run.modelBindings.judge : undefined;
    const bound = boundId && /^[0-9a-f-]{36}$/i.test(boundId) ? await configs.findOneBy({ id: boundId, enabled: true }) : null;
    const config = bound ?? (await configs.findOneBy({ purpose: 'judge', enabled: true, type: 'chat' })) ?? (await configs.findOneBy({ isAnalysisDefault: true, enabled: true }));
    if (!config) return undefined;
    const temperature = typeof run.llmConfig.temperature === 'number' ? run.llmConfig.temperature : 0;
    return createRubricJudge(createChatModel({ baseUrl: config.baseUrl, model: config.model, apiKey: config.apiKey }, this.outboundHttp.client(this.config.evaluationOutbound.model)), { temperature, maxAnswerChars: this.config.evalRuns.judgeAnswerMaxChars, responseFormat: config.supportsResponseFormat });
  }
}

/** The scenario's rule defaults (`llm_config.rule_defaults`, issue 24 item 2), kept only when valid. */
function ruleDefaultsOf(llmConfig: Record<string, unknown>): RuleDefaults {
  const defaults = llmConfig?.rule_defaults;
  return defaults !== undefined && validateRuleDefaults(defaults).length === 0 ? (defaults as RuleDefaults) : {};
}
