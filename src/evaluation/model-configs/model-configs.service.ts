import { BadRequestException, Injectable, NotFoundException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { Page, toOrder, toPage } from '../../common/paging/page';
import { analysisDefaultRefusal } from './analysis-default.rule';
import { ModelConfigEntity } from './model-config.entity';
import { CreateModelConfigDto, MODEL_CONFIG_SORT_FIELDS, ModelConfigDto, ModelConfigQueryDto, UpdateModelConfigDto, toModelConfigDto } from './model-configs.dto';
import { ListPager } from '../../common/paging/list-pager';

/** Serialises changes of the analysis default across instances (a transaction-scoped advisory lock). */
const ANALYSIS_DEFAULT_LOCK = 'SELECT pg_advisory_xact_lock(hashtext($1))';

/** Model configuration CRUD (evaluation-platform.md, Resources: Model configuration; rule 5). */
@Injectable()
export class ModelConfigsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly pager: ListPager,
  ) {}

  /** @throws BadRequestException (400) analysis default asked for a disabled or non-chat configuration */
  async create(input: CreateModelConfigDto): Promise<ModelConfigDto> {
    return this.dataSource.transaction(async (manager) => {
      const row = manager.create(ModelConfigEntity, {
        name: input.name,
        provider: input.provider ?? 'openai_compatible',
        baseUrl: input.base_url,
        model: input.model,
        apiKey: input.api_key || null,
        type: input.type ?? 'chat',
        purpose: input.purpose ?? 'general',
        capabilities: input.capabilities ?? {},
        enabled: input.enabled ?? true,
        supportsResponseFormat: input.supports_response_format ?? false,
        isAnalysisDefault: false,
      });
      await manager.save(row);
      if (input.is_analysis_default) await this.makeAnalysisDefault(manager, row);
      return toModelConfigDto(row);
    });
  }

  /** Newest first; sortable by `createdAt`, `name`. */
  async list(query: ModelConfigQueryDto): Promise<Page<ModelConfigDto>> {
    const order = toOrder(query.sort, MODEL_CONFIG_SORT_FIELDS, { createdAt: 'DESC' });
    const { rows, ...slice } = await this.pager.find(this.dataSource.getRepository(ModelConfigEntity), {
      where: query.purpose ? { purpose: query.purpose } : {},
      order,
    }, query);
    return toPage(rows.map(toModelConfigDto), slice, query);
  }

  /** @throws NotFoundException (404) */
  async get(id: string): Promise<ModelConfigDto> {
    return toModelConfigDto(await this.find(this.dataSource.manager, id));
  }

  /**
   * Applies the given fields. Disabling the analysis default, or turning it into a non-chat configuration, is
   * refused while it holds the default (clear it or give it to another first).
   * @throws NotFoundException (404); BadRequestException (400) rule 5
   */
  async update(id: string, input: UpdateModelConfigDto): Promise<ModelConfigDto> {
    return this.dataSource.transaction(async (manager) => {
      await manager.query(ANALYSIS_DEFAULT_LOCK, ['eval.analysis-default']);
      const row = await this.find(manager, id);
      const { is_analysis_default: isAnalysisDefault, api_key: apiKey, base_url: baseUrl, supports_response_format: responseFormat, ...fields } = input;
      Object.assign(row, fields);
      if (responseFormat !== undefined) row.supportsResponseFormat = responseFormat;
      if (baseUrl !== undefined) row.baseUrl = baseUrl;
      if (apiKey !== undefined) row.apiKey = apiKey || null;
      if (row.isAnalysisDefault && isAnalysisDefault !== false) {
        const refusal = analysisDefaultRefusal(row);
        if (refusal) throw new BadRequestException(`${refusal} It is the analysis default; clear that first.`);
      }
      if (isAnalysisDefault === false) row.isAnalysisDefault = false;
      await manager.save(row);
      if (isAnalysisDefault === true) await this.makeAnalysisDefault(manager, row);
      return toModelConfigDto(row);
    });
  }

  /** @throws NotFoundException (404) */
  async remove(id: string): Promise<void> {
    const result = await this.dataSource.getRepository(ModelConfigEntity).delete({ id });
    if (!result.affected) throw new NotFoundException(`No model configuration ${id}.`);
  }

  /** Clears the previous holder and sets `row`, in the caller's transaction, under the advisory lock. */
  private async makeAnalysisDefault(manager: EntityManager, row: ModelConfigEntity): Promise<void> {
    const refusal = analysisDefaultRefusal(row);
    if (refusal) throw new BadRequestException(refusal);
    await manager.query(ANALYSIS_DEFAULT_LOCK, ['eval.analysis-default']);
    await manager.update(ModelConfigEntity, { isAnalysisDefault: true }, { isAnalysisDefault: false });
    await manager.update(ModelConfigEntity, { id: row.id }, { isAnalysisDefault: true });
    row.isAnalysisDefault = true;
  }

  private async find(manager: EntityManager, id: string): Promise<ModelConfigEntity> {
    const row = await manager.findOneBy(ModelConfigEntity, { id });
    if (!row) throw new NotFoundException(`No model configuration ${id}.`);
    return row;
  }
}
