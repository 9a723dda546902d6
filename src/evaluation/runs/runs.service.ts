import { ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, In } from 'typeorm';
import { Page, toOrder, toPage } from '../../common/paging/page';
import { JobsService } from '../../jobs/jobs.service';
import { ScenariosService } from '../scenarios/scenarios.service';
import { TargetsService } from '../targets/targets.service';
import { RUN_EVALUATION } from './run-jobs';
import { LIVE_RUN_STATUSES, RunEntity } from './run.entity';
import { CreateRunDto, RunDto, RunQueryDto, toRunDto } from './runs.dto';

/** Columns of a run without its case snapshot (lists stay light even for 20,000-case runs). */
const LIST_COLUMNS = [
  'run.id', 'run.scenarioId', 'run.scenarioName', 'run.scenarioVersion', 'run.targetId', 'run.targetName', 'run.status', 'run.triggeredBy',
  'run.campaignId', 'run.concurrency', 'run.repeatCount', 'run.summary', 'run.error', 'run.createdAt', 'run.startedAt', 'run.finishedAt',
];

/** Maps a run read by {@link RunsService.lightQuery} (no cases) with its SQL-computed case count. */
function toLightRunDto(run: RunEntity, raw: unknown): RunDto {
  return { ...toRunDto({ ...run, cases: [] }), case_count: Number((raw as { case_count: number }).case_count) };
}

/** Runs: creation, reading, listing, cancelling (evaluation-platform.md, Endpoints: /api/runs). */
@Injectable()
export class RunsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly scenarios: ScenariosService,
    private readonly targets: TargetsService,
    private readonly jobs: JobsService,
  ) {}

  /**
   * Creates a `queued` run that snapshots the scenario's version and cases, and enqueues its execution in the
   * same transaction, so a run exists only with its job.
   * @throws NotFoundException (404) unknown scenario or target
   */
  async create(input: CreateRunDto): Promise<RunDto> {
    const [scenario, target] = await Promise.all([this.scenarios.find(input.scenario_id), this.targets.find(input.target_id)]);
    this.targets.channelFor(target); // refuses kinds that cannot be called yet (400) before anything is stored
    const run = await this.dataSource.transaction(async (manager) => {
      const row = manager.create(RunEntity, {
        scenarioId: scenario.id,
        scenarioName: scenario.name,
        scenarioVersion: scenario.version,
        targetId: target.id,
        targetName: target.name,
        status: 'queued',
        triggeredBy: input.triggered_by ?? 'manual',
        campaignId: input.campaign_id ?? null,
        concurrency: input.concurrency ?? 4,
        repeatCount: input.repeat_count ?? 1,
        cases: scenario.cases,
        modelBindings: scenario.modelBindings,
        llmConfig: scenario.llmConfig,
        summary: null,
        error: null,
        startedAt: null,
        finishedAt: null,
      });
      await manager.save(row);
      await this.jobs.enqueue(RUN_EVALUATION, { runId: row.id }, { manager });
      return row;
    });
    this.jobs.notify(RUN_EVALUATION);
    return toRunDto(run);
  }

  /** Newest first; filter by status, scenario, target, campaign; sortable by `createdAt`. */
  async list(query: RunQueryDto): Promise<Page<RunDto>> {
    const order = toOrder(query.sort, { createdAt: 'run.createdAt' }, { 'run.createdAt': 'DESC' });
    const builder = this.lightQuery();
    if (query.status) builder.andWhere('run.status = :status', { status: query.status });
    if (query.scenario_id) builder.andWhere('run.scenarioId = :scenarioId', { scenarioId: query.scenario_id });
    if (query.target_id) builder.andWhere('run.targetId = :targetId', { targetId: query.target_id });
    if (query.campaign_id) builder.andWhere('run.campaignId = :campaignId', { campaignId: query.campaign_id });
    for (const [field, direction] of Object.entries(order)) builder.addOrderBy(field, direction);
    builder.addOrderBy('run.id', 'DESC').offset(query.page * query.size).limit(query.size);
    const [{ entities, raw }, total] = await Promise.all([builder.getRawAndEntities(), builder.getCount()]);
    return toPage(entities.map((run, index) => toLightRunDto(run, raw[index])), total, query);
  }

  /**
   * The run as pollers read it, without loading its case snapshot (a 20,000-case snapshot cost ~50 ms per poll).
   * @throws NotFoundException (404)
   */
  async get(id: string): Promise<RunDto> {
    const { entities, raw } = await this.lightQuery().where('run.id = :id', { id }).getRawAndEntities();
    if (entities.length === 0) throw new NotFoundException(`No run ${id}.`);
    return toLightRunDto(entities[0], raw[0]);
  }

  /** Runs without their case snapshot, with `case_count` computed by PostgreSQL. */
  private lightQuery() {
    return this.dataSource.getRepository(RunEntity).createQueryBuilder('run').select(LIST_COLUMNS).addSelect('jsonb_array_length(run.cases)', 'case_count');
  }

  /**
   * Cancels a queued or running run; cases already finished keep their results.
   * @throws NotFoundException (404); ConflictException (409) the run already ended
   */
  async cancel(id: string): Promise<RunDto> {
    const result = await this.dataSource
      .getRepository(RunEntity)
      .update({ id, status: In(LIVE_RUN_STATUSES) }, { status: 'cancelled', finishedAt: new Date() });
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
