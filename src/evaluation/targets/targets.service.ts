import { BadRequestException, Injectable, NotFoundException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Page, toOrder, toPage } from '../../common/paging/page';
import {
  createHttpChannel,
  createOpenAiChannel,
  HttpChannelConfig,
  OpenAiChannelConfig,
  TargetChannel,
  validateHttpChannelConfig,
  validateOpenAiChannelConfig,
} from './channels';
import { TargetEntity } from './target.entity';
import { CreateTargetDto, HttpChannelDto, OpenAiChannelDto, TargetDto, TargetQueryDto, UpdateTargetDto, toTargetDto } from './targets.dto';

type Stored = Pick<TargetEntity, 'channel' | 'secrets'>;

/** Splits http settings into stored non-secret settings and secrets; keeps `previous` secrets the request omits. */
function storeHttp(input: HttpChannelDto, previous?: TargetEntity['secrets']): Stored {
  const { headers, ...channel } = input;
  return { channel, secrets: { headers: headers ?? previous?.headers ?? {} } };
}

/** As {@link storeHttp} for openai settings. */
function storeOpenAi(input: OpenAiChannelDto, previous?: TargetEntity['secrets']): Stored {
  const { api_key: apiKey, ...channel } = input;
  const key = apiKey ?? previous?.api_key;
  return { channel, secrets: key ? { api_key: key } : {} };
}

/** The channel config the adapters take, from stored settings and secrets. */
function httpConfigOf(stored: Stored): HttpChannelConfig {
  const channel = stored.channel as Omit<HttpChannelDto, 'headers'>;
  return { url: channel.url, method: channel.method, headers: stored.secrets.headers, bodyTemplate: channel.body_template, replyPath: channel.reply_path, timeoutMs: channel.timeout_ms };
}

function openAiConfigOf(stored: Stored): OpenAiChannelConfig {
  const channel = stored.channel as Omit<OpenAiChannelDto, 'api_key'>;
  return { baseUrl: channel.base_url, model: channel.model, apiKey: stored.secrets.api_key, systemPrompt: channel.system_prompt, temperature: channel.temperature, timeoutMs: channel.timeout_ms };
}

/** Targets CRUD and their channels (issue 3: Target; paths not shown in the spec). */
@Injectable()
export class TargetsService {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** @throws BadRequestException (400) settings missing for the kind, invalid, or `digital_staff` (not yet available) */
  async create(input: CreateTargetDto): Promise<TargetDto> {
    const stored = this.settingsFor(input.kind, input);
    const repository = this.dataSource.getRepository(TargetEntity);
    const row = repository.create({
      name: input.name,
      description: input.description ?? null,
      kind: input.kind,
      ...stored,
      maxConcurrency: input.max_concurrency ?? 4,
    });
    return toTargetDto(await repository.save(row));
  }

  /** Newest first; sortable by `createdAt`, `name`. */
  async list(query: TargetQueryDto): Promise<Page<TargetDto>> {
    const order = toOrder(query.sort, { createdAt: 'createdAt', name: 'name' }, { createdAt: 'DESC' });
    const [rows, total] = await this.dataSource.getRepository(TargetEntity).findAndCount({
      where: query.kind ? { kind: query.kind } : {},
      order: { ...order, id: 'ASC' },
      skip: query.page * query.size,
      take: query.size,
    });
    return toPage(rows.map(toTargetDto), total, query);
  }

  /** @throws NotFoundException (404) */
  async get(id: string): Promise<TargetDto> {
    return toTargetDto(await this.find(id));
  }

  /** @throws NotFoundException (404); BadRequestException (400) settings of another kind or invalid */
  async update(id: string, input: UpdateTargetDto): Promise<TargetDto> {
    const row = await this.find(id);
    if ((input.http && row.kind !== 'http') || (input.openai && row.kind !== 'openai')) {
      throw new BadRequestException(`This target is of kind "${row.kind}"; send its "${row.kind}" settings.`);
    }
    if (input.http || input.openai) Object.assign(row, this.settingsFor(row.kind, input, row.secrets));
    if (input.name !== undefined) row.name = input.name;
    if (input.description !== undefined) row.description = input.description;
    if (input.max_concurrency !== undefined) row.maxConcurrency = input.max_concurrency;
    return toTargetDto(await this.dataSource.getRepository(TargetEntity).save(row));
  }

  /** @throws NotFoundException (404) */
  async remove(id: string): Promise<void> {
    const result = await this.dataSource.getRepository(TargetEntity).delete({ id });
    if (!result.affected) throw new NotFoundException(`No target ${id}.`);
  }

  /** The stored target. @throws NotFoundException (404) */
  async find(id: string): Promise<TargetEntity> {
    const row = await this.dataSource.getRepository(TargetEntity).findOneBy({ id });
    if (!row) throw new NotFoundException(`No target ${id}.`);
    return row;
  }

  /** The channel that calls this target. @throws BadRequestException a kind without an adapter yet */
  channelFor(target: TargetEntity): TargetChannel {
    if (target.kind === 'http') return createHttpChannel(httpConfigOf(target));
    if (target.kind === 'openai') return createOpenAiChannel(openAiConfigOf(target));
    throw new BadRequestException(`Targets of kind "${target.kind}" cannot be called yet.`);
  }

  /** Validates and splits the settings section of `kind`. */
  private settingsFor(kind: TargetEntity['kind'], input: { http?: HttpChannelDto; openai?: OpenAiChannelDto }, previous?: TargetEntity['secrets']): Stored {
    if (kind === 'digital_staff') throw new BadRequestException('digital_staff targets need the chat wing, which is not available yet.');
    const other = kind === 'http' ? input.openai : input.http;
    if (other) throw new BadRequestException(`A "${kind}" target takes only "${kind}" settings.`);
    const stored = kind === 'http' ? input.http && storeHttp(input.http, previous) : input.openai && storeOpenAi(input.openai, previous);
    if (!stored) throw new BadRequestException(`A "${kind}" target needs its "${kind}" settings.`);
    const problems = kind === 'http' ? validateHttpChannelConfig(httpConfigOf(stored)) : validateOpenAiChannelConfig(openAiConfigOf(stored));
    if (problems.length > 0) throw new BadRequestException(`Invalid ${kind} settings: ${problems.join('; ')}`);
    return stored;
  }
}
