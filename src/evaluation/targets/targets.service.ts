import { BadRequestException, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { DigitalStaffSandboxError, type DigitalStaffTarget, DigitalStaffTargetRegistry } from '../../common/ports/digital-staff-target';
import { Page, toOrder, toPage } from '../../common/paging/page';
import type { OutboundClient } from '../../common/outbound/outbound-client';
import { OutboundHttp } from '../../common/outbound/outbound.service';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import {
  createDigitalStaffChannel,
  createHttpChannel,
  createOpenAiChannel,
  DigitalStaffChannelConfig,
  HttpChannelConfig,
  OpenAiChannelConfig,
  TargetChannel,
  validateDigitalStaffChannelConfig,
  validateHttpChannelConfig,
  validateOpenAiChannelConfig,
} from './channels';
import { TargetEntity } from './target.entity';
import { TARGET_SORT_FIELDS, CreateTargetDto, DigitalStaffChannelDto, HttpChannelDto, OpenAiChannelDto, TargetDto, TargetQueryDto, UpdateTargetDto, toTargetDto } from './targets.dto';
import { ListPager } from '../../common/paging/list-pager';

/** The settings sections a create or update body may carry. */
type SettingsInput = { http?: HttpChannelDto; openai?: OpenAiChannelDto; digital_staff?: DigitalStaffChannelDto };

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

/** As {@link httpConfigOf} for digital_staff settings (no secrets). */
function digitalStaffConfigOf(stored: Pick<Stored, 'channel'>): DigitalStaffChannelConfig {
  const channel = stored.channel as unknown as DigitalStaffChannelDto;
  return { tenantId: channel.tenant_id, digitalStaffId: channel.digital_staff_id, timeoutMs: channel.timeout_ms };
}

/** Targets CRUD and their channels (issue 3: Target; paths not shown in the spec). */
@Injectable()
export class TargetsService {
  /** The targets' outbound client (EVAL_TARGET_ALLOW_PRIVATE_NETWORKS, EVAL_TARGET_MAX_RESPONSE_BYTES). */
  private readonly outbound: OutboundClient;

  constructor(
    private readonly pager: ListPager,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly digitalStaffTargets: DigitalStaffTargetRegistry,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    outboundHttp: OutboundHttp,
  ) {
    this.outbound = outboundHttp.client(config.evaluationOutbound.target);
  }

  /**
   * @throws BadRequestException (400) settings missing for the kind, of another kind, or invalid; for `digital_staff`
   *   also when its chat tenant or digital staff does not exist (the message names which)
   */
  async create(input: CreateTargetDto): Promise<TargetDto> {
    const stored = await this.settingsFor(input.kind, input);
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
    const order = toOrder(query.sort, TARGET_SORT_FIELDS, { createdAt: 'DESC' });
    const { rows, ...slice } = await this.pager.find(this.dataSource.getRepository(TargetEntity), {
      where: query.kind ? { kind: query.kind } : {},
      order,
    }, query);
    return toPage(rows.map(toTargetDto), slice, query);
  }

  /** @throws NotFoundException (404) */
  async get(id: string): Promise<TargetDto> {
    return toTargetDto(await this.find(id));
  }

  /** @throws NotFoundException (404); BadRequestException (400) settings of another kind or invalid */
  async update(id: string, input: UpdateTargetDto): Promise<TargetDto> {
    const row = await this.find(id);
    if ((input.http && row.kind !== 'http') || (input.openai && row.kind !== 'openai') || (input.digital_staff && row.kind !== 'digital_staff')) {
      throw new BadRequestException(`This target is of kind "${row.kind}"; send its "${row.kind}" settings.`);
    }
    if (input.http || input.openai || input.digital_staff) Object.assign(row, await this.settingsFor(row.kind, input, row.secrets));
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

  /**
   * The `digital_staff` port the chat wing registered (issue 15 item 8: evaluation never imports the chat wing).
   * @throws BadRequestException (400) when no wing registered one (the chat wing isn't loaded)
   */
  private get sandbox(): DigitalStaffTarget {
    const target = this.digitalStaffTargets.get();
    if (!target) throw new BadRequestException('Targets of kind "digital_staff" need the chat wing, which is not loaded.');
    return target;
  }

  /**
   * The channel that calls this target. A `digital_staff` target goes through the chat wing's sandbox (registered port)
   * (timeout: its timeout_ms, else EVAL_DIGITAL_STAFF_TIMEOUT_MS); `http` and `openai` targets go through the
   * evaluation targets' outbound client (issue 19 item 1).
   * @throws BadRequestException a kind without an adapter
   */
  channelFor(target: TargetEntity): TargetChannel {
    if (target.kind === 'http') return createHttpChannel(httpConfigOf(target), this.outbound);
    if (target.kind === 'openai') return createOpenAiChannel(openAiConfigOf(target), this.outbound);
    if (target.kind === 'digital_staff') return createDigitalStaffChannel(digitalStaffConfigOf(target), this.sandbox, this.config.evaluation.digitalStaffTimeoutMs);
    throw new BadRequestException(`Targets of kind "${target.kind}" cannot be called yet.`);
  }

  /** Validates and splits the settings section of `kind`. */
  private async settingsFor(kind: TargetEntity['kind'], input: SettingsInput, previous?: TargetEntity['secrets']): Promise<Stored> {
    const others = (['http', 'openai', 'digital_staff'] as const).filter((name) => name !== kind && input[name]);
    if (others.length > 0) throw new BadRequestException(`A "${kind}" target takes only "${kind}" settings.`);
    if (kind === 'digital_staff') return this.digitalStaffSettings(input.digital_staff);
    const stored = kind === 'http' ? input.http && storeHttp(input.http, previous) : input.openai && storeOpenAi(input.openai, previous);
    if (!stored) throw new BadRequestException(`A "${kind}" target needs its "${kind}" settings.`);
    const problems = kind === 'http' ? validateHttpChannelConfig(httpConfigOf(stored)) : validateOpenAiChannelConfig(openAiConfigOf(stored));
    if (problems.length > 0) throw new BadRequestException(`Invalid ${kind} settings: ${problems.join('; ')}`);
    return stored;
  }

  /**
   * Validates `digital_staff` settings: shape, then (through the chat wing's sandbox) that the tenant and the
   * digital staff exist. Stored as sent; there are no secrets.
   * @throws BadRequestException (400) settings missing or invalid, tenant or digital staff unknown (named)
   */
  private async digitalStaffSettings(input: DigitalStaffChannelDto | undefined): Promise<Stored> {
    if (!input) throw new BadRequestException('A "digital_staff" target needs its "digital_staff" settings.');
    const channel: Record<string, unknown> = { tenant_id: input.tenant_id, digital_staff_id: input.digital_staff_id, ...(input.timeout_ms !== undefined ? { timeout_ms: input.timeout_ms } : {}) };
    const config = digitalStaffConfigOf({ channel });
    const problems = validateDigitalStaffChannelConfig(config);
    if (problems.length > 0) throw new BadRequestException(`Invalid digital_staff settings: ${problems.join('; ')}`);
    try {
      await this.sandbox.checkTarget(config.tenantId, config.digitalStaffId);
    } catch (error) {
      if (error instanceof DigitalStaffSandboxError) throw new BadRequestException(`Invalid digital_staff settings: ${error.message}.`);
      throw error;
    }
    return { channel, secrets: {} };
  }
}
