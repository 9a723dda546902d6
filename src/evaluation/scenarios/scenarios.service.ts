import { BadRequestException, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Page, toOrder, toPage } from '../../common/paging/page';
import { ScenarioCase, ScenarioEntity } from './scenario.entity';
import { SCENARIO_SORT_FIELDS, CreateScenarioDto, ScenarioDto, ScenarioQueryDto, ScenarioSummaryDto, UpdateScenarioDto, toScenarioDto } from './scenarios.dto';
import { nextScenarioVersion } from './syllabus';
import { likeContains, searchMatch, type ListSearch } from '../../database/like-contains';
import { ListPager } from '../../common/paging/list-pager';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';

/** Refuses two cases with one id: results and comparisons match cases by id. */
function assertUniqueCaseIds(cases: { id: string }[]): void {
  const seen = new Set<string>();
  for (const item of cases) {
    if (seen.has(item.id)) throw new BadRequestException(`Case id "${item.id}" appears twice; case ids must be unique within a scenario.`);
    seen.add(item.id);
  }
}

/** The scenarios' name search (`q`): a table without tenants, so no scope (termIsCommon decides common or rare). */
const SCENARIO_SEARCH: ListSearch = { table: 'eval_scenario', alias: 'scenario', scope: [], columns: ['name'] };

/** Scenario CRUD with system-kept versions (evaluation-platform.md, Resources: Scenario; rules 1–2). */
@Injectable()
export class ScenariosService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly pager: ListPager,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Creates a scenario at version 1 (a client-sent version is ignored). @throws BadRequestException duplicate case ids */
  async create(input: CreateScenarioDto): Promise<ScenarioDto> {
    assertUniqueCaseIds(input.cases);
    const repository = this.dataSource.getRepository(ScenarioEntity);
    const row = repository.create({
      name: input.name,
      description: input.description ?? null,
      metadata: input.metadata ?? {},
      cases: input.cases as ScenarioCase[],
      modelBindings: input.model_bindings ?? {},
      llmConfig: input.llm_config ?? {},
      version: 1,
    });
    return toScenarioDto(await repository.save(row));
  }

  /** Newest first; `q` filters names; sortable by `createdAt`, `name`, `version`. Cases are left out. */
  async list(query: ScenarioQueryDto): Promise<Page<ScenarioSummaryDto>> {
    const order = toOrder(query.sort, SCENARIO_SORT_FIELDS, { 'scenario.createdAt': 'DESC' });
    const builder = this.dataSource
      .getRepository(ScenarioEntity)
      .createQueryBuilder('scenario')
      .select(['scenario.id', 'scenario.name', 'scenario.description', 'scenario.metadata', 'scenario.version', 'scenario.createdAt', 'scenario.updatedAt'])
      .addSelect('jsonb_array_length(scenario.cases)', 'case_count');
    // A name common among the scenarios walks the sort index with the ILIKE alone, ids first (the sort indexes hold the
    // name: migration 1795600770000), uncounted; a rarer one takes the search index.
    const common = query.q ? await this.pager.isCommonTerm(this.dataSource, SCENARIO_SEARCH, query.q) : false;
    if (query.q) builder.where(...searchMatch(SCENARIO_SEARCH, 'q', query.q, { common }));
    for (const [field, direction] of Object.entries(order)) builder.addOrderBy(field, direction);
    const { rows, raws, ...slice } = await this.pager.page(builder, query, { search: Boolean(query.q), walk: common, candidates: Boolean(query.q) && !common });
    const content = rows.map((row, index) => ({
      id: row.id,
      name: row.name,
      description: row.description,
      metadata: row.metadata,
      version: row.version,
      case_count: Number((raws[index] as { case_count: number }).case_count),
      created_at: row.createdAt.toISOString(),
      updated_at: row.updatedAt.toISOString(),
    }));
    return toPage(content, slice, query);
  }

  /** @throws NotFoundException (404) */
  async get(id: string): Promise<ScenarioDto> {
    return toScenarioDto(await this.find(id));
  }

  /**
   * Applies an edit; the version goes up by one only when `cases`, `model_bindings` or `llm_config` change
   * (rule 1). The row is locked so two concurrent edits cannot both bump from the same version.
   * @throws NotFoundException (404); BadRequestException (400) duplicate case ids
   */
  async update(id: string, input: UpdateScenarioDto): Promise<ScenarioDto> {
    return this.dataSource.transaction(async (manager) => {
      const row = await manager.findOne(ScenarioEntity, { where: { id }, lock: { mode: 'pessimistic_write' } });
      if (!row) throw new NotFoundException(`No scenario ${id}.`);
      const next = {
        cases: (input.cases as ScenarioCase[] | undefined) ?? row.cases,
        modelBindings: input.model_bindings ?? row.modelBindings,
        llmConfig: input.llm_config ?? row.llmConfig,
      };
      assertUniqueCaseIds(next.cases);
      row.version = nextScenarioVersion(row, next);
      Object.assign(row, next);
      if (input.name !== undefined) row.name = input.name;
      if (input.description !== undefined) row.description = input.description;
      if (input.metadata !== undefined) row.metadata = input.metadata;
      return toScenarioDto(await manager.save(row));
    });
  }

  /** Deletes a scenario; its runs keep their snapshots. @throws NotFoundException (404) */
  async remove(id: string): Promise<void> {
    const result = await this.dataSource.getRepository(ScenarioEntity).delete({ id });
    if (!result.affected) throw new NotFoundException(`No scenario ${id}.`);
  }

  /** The stored scenario. @throws NotFoundException (404) */
  async find(id: string): Promise<ScenarioEntity> {
    const row = await this.dataSource.getRepository(ScenarioEntity).findOneBy({ id });
    if (!row) throw new NotFoundException(`No scenario ${id}.`);
    return row;
  }
}
