import { ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, In } from 'typeorm';
import { Page, toOrder, toPage } from '../../common/paging/page';
import { JobsService } from '../../jobs/jobs.service';
import { settleCampaignOfRun } from '../campaigns/campaign-settlement';
import { TargetEntity } from '../targets/target.entity';
import { TargetsService } from '../targets/targets.service';
import { RUN_EVALUATION } from './run-jobs';
import { ListPager } from '../../common/paging/list-pager';
import { LIVE_RUN_STATUSES, RunEntity, RunTrigger } from './run.entity';
import { RUN_SORT_FIELDS, CreateRunDto, RunDto, RunQueryDto, toRunDto } from './runs.dto';

/** Columns of a run a response needs (not its model bindings, LLM settings or lease). */
const LIST_COLUMNS = [
  'run.id', 'run.scenarioId', 'run.scenarioName', 'run.scenarioVersion', 'run.targetId', 'run.targetName', 'run.status', 'run.triggeredBy',
  'run.campaignId', 'run.concurrency', 'run.repeatCount', 'run.caseCount', 'run.summary', 'run.error', 'run.createdAt', 'run.startedAt', 'run.finishedAt',
];

/** Maps a run read by {@link RunsService.lightQuery}; `case_count` is the stored count (issue 23 item 3). */
// eslint-disable-next-line @typescript-eslint/no-unused-vars
function toLightRunDto(run: RunEntity, _raw?: unknown): RunDto {
  return toRunDto(run);
}

/**
 * What only the platform itself may set on a new run (never the public POST /api/runs body): the campaign that
 * creates it, the trigger, and the caller's transaction.
 */
export interface InternalRunOptions {
  /** The campaign the run belongs to (set by POST /api/campaigns/{id}/start only). */
  campaignId?: string;
  /** Replaces the body's `triggered_by`. */
  triggeredBy?: RunTrigger;
  /**
   * Create inside this transaction: the scenario and target are read through it, and the caller must call
   * `jobs.notify(RUN_EVALUATION)` after its commit (the job is enqueued in the transaction, not announced).
   */
  manager?: EntityManager;
}

/**
 * Creates a queued run from a scenario row ($1) in one statement, with its case snapshot as `eval_run_case` rows
 * (one per case, at its position) and the stored `case_count`; no row when the scenario does not exist. Both
 * inserts read the scenario under the statement's one snapshot.
 */
const INSERT_RUN_FROM_SCENARIO_SQL = `
  WITH run AS (
    INSERT INTO eval_run (scenario_id, scenario_name, scenario_version, target_id, target_name, status, triggered_by, campaign_id, concurrency, repeat_count, case_count, model_bindings, llm_config)
    SELECT scenario.id, scenario.name, scenario.version, $2, $3, 'queued', $4, $5, $6, $7, jsonb_array_length(scenario.cases), scenario.model_bindings, scenario.llm_config
    FROM eval_scenario scenario WHERE scenario.id = $1
    RETURNING id
  ), snapshot AS (
    INSERT INTO eval_run_case (run_id, position, case_id, content)
    SELECT run.id, item.ordinality - 1, item.value->>'id', item.value
      FROM run, eval_scenario scenario, jsonb_array_elements(scenario.cases) WITH ORDINALITY AS item(value, ordinality)
     WHERE scenario.id = $1
  )
  SELECT id FROM run`;

/** Runs: creation, reading, listing, cancelling (evaluation-platform.md, Endpoints: /api/runs). */
@Injectable()
export class RunsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly targets: TargetsService,
    private readonly jobs: JobsService,
    private readonly pager: ListPager,
  ) {}

  /**
   * Creates a `queued` run that snapshots the scenario's version and cases, and enqueues its execution in the
   * same transaction, so a run exists only with its job. `internal` is for the platform's own callers (campaigns).
   * @throws NotFoundException (404) unknown scenario or target
   */
  async create(input: CreateRunDto, internal: InternalRunOptions = {}): Promise<RunDto> {
    const outer = internal.manager;
    const target = outer ? await this.findTarget(outer, input.target_id) : await this.targets.find(input.target_id);
    this.targets.channelFor(target); // refuses kinds that cannot be called yet (400) before anything is stored
    const write = async (manager: EntityManager): Promise<RunDto> => {
      // The scenario's name, version and syllabus are copied by PostgreSQL from one row: one consistent snapshot,
      // and a 20,000-case syllabus is never parsed and re-serialised by the app (that was ~60 MB of heap garbage).
      const inserted: { id: string }[] = await manager.query(INSERT_RUN_FROM_SCENARIO_SQL, [
        input.scenario_id,
        target.id,
        target.name,
        internal.triggeredBy ?? input.triggered_by ?? 'manual',
        internal.campaignId ?? null,
        input.concurrency ?? 4,
        input.repeat_count ?? 1,
      ]);
      if (inserted.length === 0) throw new NotFoundException(`No scenario ${input.scenario_id}.`);
      await this.jobs.enqueue(RUN_EVALUATION, { runId: inserted[0].id }, { manager });
      return this.getWith(manager, inserted[0].id);
    };
    if (outer) return write(outer);
    const run = await this.dataSource.transaction(write);
    this.jobs.notify(RUN_EVALUATION);
    return run;
  }

  /** A target read through the caller's transaction. @throws NotFoundException (404) */
  private async findTarget(manager: EntityManager, id: string): Promise<TargetEntity> {
    const row = await manager.findOneBy(TargetEntity, { id });
    if (!row) throw new NotFoundException(`No target ${id}.`);
    return row;
  }

  /** Newest first; filter by status, scenario, target, campaign; sortable by `createdAt`. */
  async list(query: RunQueryDto): Promise<Page<RunDto>> {
    const order = toOrder(query.sort, RUN_SORT_FIELDS, { 'run.createdAt': 'DESC' });
    const builder = this.lightQuery();
    if (query.status) builder.andWhere('run.status = :status', { status: query.status });
    if (query.scenario_id) builder.andWhere('run.scenarioId = :scenarioId', { scenarioId: query.scenario_id });
    if (query.target_id) builder.andWhere('run.targetId = :targetId', { targetId: query.target_id });
    if (query.campaign_id) builder.andWhere('run.campaignId = :campaignId', { campaignId: query.campaign_id });
    for (const [field, direction] of Object.entries(order)) builder.addOrderBy(field, direction);
    const { rows, raws, ...slice } = await this.pager.page(builder, query);
    return toPage(rows.map((run, index) => toLightRunDto(run, raws[index])), slice, query);
  }

  /**
   * The run as pollers read it: one row with its stored case count, never the case snapshot (issue 23 item 3).
   * @throws NotFoundException (404)
   */
  async get(id: string): Promise<RunDto> {
    return this.getWith(this.dataSource.manager, id);
  }

  /** {@link get} through `manager` (inside a transaction). @throws NotFoundException (404) */
  private async getWith(manager: EntityManager, id: string): Promise<RunDto> {
    const { entities, raw } = await this.lightQuery(manager).where('run.id = :id', { id }).getRawAndEntities();
    if (entities.length === 0) throw new NotFoundException(`No run ${id}.`);
    return toLightRunDto(entities[0], raw[0]);
  }

  /** Runs with the columns a response needs (`case_count` is stored: the case snapshot is never read). */
  private lightQuery(manager: EntityManager = this.dataSource.manager) {
    return manager.getRepository(RunEntity).createQueryBuilder('run').select(LIST_COLUMNS);
  }

  /**
   * Cancels a queued or running run; cases already finished keep their results. In the same transaction, the
   * run's campaign completes when this was its last live run.
   * @throws NotFoundException (404); ConflictException (409) the run already ended
   */
  async cancel(id: string): Promise<RunDto> {
    const result = await this.dataSource.transaction(async (manager) => {
      const updated = await manager.update(RunEntity, { id, status: In(LIVE_RUN_STATUSES) }, { status: 'cancelled', finishedAt: new Date() });
      if (updated.affected) await settleCampaignOfRun(manager, id);
      return updated;
    });
    const run = await this.get(id);
    if (!result.affected) throw new ConflictException(`The run is already ${run.status}.`);
    return run;
  }

  /** The stored run. @throws NotFoundException (404) */
  async find(id: string): Promise<RunEntity> {
    const run = await this.dataSource.getRepository(RunEntity).findOneBy({ id });
    if (!run) throw new NotFoundException(`No run ${id}.`);
    return run;
  }
}
