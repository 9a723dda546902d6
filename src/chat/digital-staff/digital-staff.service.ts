import { BadRequestException, ConflictException, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, In } from 'typeorm';
import { Page, toOrder, toPage } from '../../common/paging/page';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { ContactWayEntity } from '../contact-ways/contact-way.entity';
import { GroupWayEntity } from '../group-ways/group-way.entity';
import { WorkChatUserEntity } from '../staff-users/work-chat-user.entity';
import { uniqueViolation } from '../common/db-support';
import { DigitalStaffEntity } from './digital-staff.entity';
import { CHAT_STAFF_SORT_FIELDS, ChatStaffCreateRequestV1, ChatStaffDto, ChatStaffPageQueryV1, ChatStaffUpdateRequestV1, toChatStaffDto } from './digital-staff.dto';
import { ChatDigitalStaffServiceTimeDto, CreateServiceTimeRequest, toChatDigitalStaffServiceTimeDto } from './service-time.dto';
import { DigitalStaffServiceTimeEntity } from './service-time.entity';
import { isInServiceTime, localDayAndMinute, ServiceTimeWindow, validateServiceTime } from './service-time.rules';
import { containsMatch, likeContains } from '../../database/like-contains';
import { ListPager } from '../../common/paging/list-pager';

/** Whether a digital staff is in service at an instant, and why (for diagnosis and the reply path). */
export interface ServiceTimeStatus {
  inService: boolean;
  /** Whether a service-time configuration exists; without one the digital staff is always in service. */
  configured: boolean;
  /** IANA time zone of the configuration, or null when none. */
  timeZone: string | null;
  /** The configured reply outside the windows, or null. */
  outOfHoursMessage: string | null;
  /** A sentence a person can act on, e.g. "Outside the service time (Asia/Shanghai): it is Saturday 20:15 there." */
  reason: string;
}

const DAY_NAMES = ['', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

/**
 * Digital staff of a tenant (chat-management-api.md, "Digital staff": `{T}/v1/chat/staff`, plus the list, read,
 * update and delete the spec leaves out) and their service time (`{T}/v1/chat/digital-staff/service-time`: exactly
 * one configuration per digital staff, keyed by its id). Every query filters by the tenant, so another tenant's ids
 * answer 404.
 *
 * Exported from ChatModule: {@link inService} / {@link serviceTimeStatus} (is a digital staff in service at an
 * instant) and {@link findById} (the entity, for use inside services) serve diagnosis and the reply path.
 */
@Injectable()
export class DigitalStaffService {
  constructor(
    private readonly pager: ListPager,
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** @throws ConflictException (409) the tenant already has a digital staff with this name */
  async create(tenantId: string, input: ChatStaffCreateRequestV1): Promise<ChatStaffDto> {
    const repository = this.dataSource.getRepository(DigitalStaffEntity);
    const row = repository.create({
      tenantId,
      name: input.name,
      persona: input.persona,
      description: input.description || null,
      welcomeMessage: input.welcomeMessage || null,
      enabled: input.enabled ?? true,
    });
    await this.saveUnique(row);
    return toChatStaffDto(row, 0, false);
  }

  /**
   * The tenant's digital staff, newest first; `name` filters by case-insensitive substring, `enabled` by state.
   * @throws BadRequestException (400) unknown sort field
   */
  async list(tenantId: string, query: ChatStaffPageQueryV1): Promise<Page<ChatStaffDto>> {
    const order = toOrder(query.sort, CHAT_STAFF_SORT_FIELDS, { createdAt: 'DESC' });
    const builder = this.dataSource.getRepository(DigitalStaffEntity).createQueryBuilder('s').where('s.tenant_id = :tenantId', { tenantId });
    if (query.name) builder.andWhere(...containsMatch('s.name', 'name', query.name));
    if (query.enabled !== undefined) builder.andWhere('s.enabled = :enabled', { enabled: query.enabled });
    for (const [property, direction] of Object.entries(order)) builder.addOrderBy(`s.${property}`, direction);
    const { rows, ...slice } = await this.pager.page(builder, query, { search: Boolean(query.name) });
    return toPage(await this.toDtos(tenantId, rows), slice, query);
  }

  /** @throws NotFoundException (404) no such digital staff in the tenant */
  async get(tenantId: string, id: string): Promise<ChatStaffDto> {
    return (await this.toDtos(tenantId, [await this.find(this.dataSource.manager, tenantId, id)]))[0];
  }

  /**
   * Changes the given fields; "" clears description and welcomeMessage.
   * @throws NotFoundException (404); ConflictException (409) another digital staff of the tenant has the new name
   */
  async update(tenantId: string, id: string, input: ChatStaffUpdateRequestV1): Promise<ChatStaffDto> {
    const row = await this.find(this.dataSource.manager, tenantId, id);
    if (input.name !== undefined) row.name = input.name;
    if (input.persona !== undefined) row.persona = input.persona;
    if (input.description !== undefined) row.description = input.description || null;
    if (input.welcomeMessage !== undefined) row.welcomeMessage = input.welcomeMessage || null;
    if (input.enabled !== undefined) row.enabled = input.enabled;
    await this.saveUnique(row);
    return (await this.toDtos(tenantId, [row]))[0];
  }

  /**
   * Deletes a digital staff and its service time, in one transaction. Refused while staff users are bound to it:
   * unbinding silently would stop AI replies to their customers, so the operator unbinds or rebinds them first.
   * The row is locked `FOR UPDATE` before counting, so a concurrent bind (which holds it `FOR SHARE`) either
   * finishes first and is counted, or waits and then finds no digital staff (404).
   * @throws NotFoundException (404) no such digital staff in the tenant
   * @throws ConflictException (409) staff users are bound to it (the message names up to 10 of them), or contact ways
   *   or group ways name it
   */
  async remove(tenantId: string, id: string): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const row = await this.find(manager, tenantId, id, 'pessimistic_write');
      const users = manager.getRepository(WorkChatUserEntity);
      const bound = await users.count({ where: { tenantId, digitalStaffId: id } });
      if (bound > 0) {
        const names = await users.find({ select: { workChatUserId: true }, where: { tenantId, digitalStaffId: id }, order: { workChatUserId: 'ASC' }, take: 10 });
        const listed = names.map((u) => `"${u.workChatUserId}"`).join(', ') + (bound > names.length ? ', …' : '');
        throw new ConflictException(
          `Digital staff "${row.name}" is bound to ${bound} staff user${bound === 1 ? '' : 's'} (${listed}); unbind them (PUT {C}/workChat/user/{id} with digitalStaffId null) or bind them to another digital staff first.`,
        );
      }
      // Contact and group ways name the digital staff that answers their customers: deleting it would leave them
      // pointing at nothing.
      const ways = await manager.getRepository(ContactWayEntity).count({ where: { tenantId, digitalStaffId: id } });
      const groupWays = await manager.getRepository(GroupWayEntity).count({ where: { tenantId, digitalStaffId: id } });
      if (ways + groupWays > 0) {
        throw new ConflictException(
          `Digital staff "${row.name}" answers the customers of ${ways} contact way${ways === 1 ? '' : 's'} and ${groupWays} group way${groupWays === 1 ? '' : 's'}; give them another digital staff (or none) first.`,
        );
      }
      await manager.getRepository(DigitalStaffServiceTimeEntity).delete({ tenantId, digitalStaffId: id });
      await manager.getRepository(DigitalStaffEntity).delete({ tenantId, id });
    });
  }

  // ------------------------------------------------------------------------------------------- service time

  /**
   * The service time of a digital staff.
   * @throws NotFoundException (404) no such digital staff in the tenant, or it has no service time configured
   */
  async getServiceTime(tenantId: string, staffId: string): Promise<ChatDigitalStaffServiceTimeDto> {
    const row = await this.dataSource.getRepository(DigitalStaffServiceTimeEntity).findOneBy({ tenantId, digitalStaffId: staffId });
    if (!row) {
      await this.find(this.dataSource.manager, tenantId, staffId);
      throw new NotFoundException(`Digital staff ${staffId} has no service time configured (it is always in service); create one with POST.`);
    }
    return toServiceTimeDto(row);
  }

  /**
   * Creates or replaces the one service-time configuration of a digital staff (spec Limits: one per digital staff).
   * Race-safe: an `INSERT … ON CONFLICT (digital_staff_id) DO UPDATE` on the primary key, so concurrent requests
   * leave exactly one row, the last writer's, with `version` counting every write. The digital staff row is held
   * `FOR SHARE` meanwhile, so it cannot be deleted under the write.
   * @throws BadRequestException (400) unknown time zone, a window not ending after it starts, overlapping windows
   *   on a day, or more windows than CHAT_SERVICE_TIME_MAX_WINDOWS (every problem listed in `errors`)
   * @throws NotFoundException (404) no such digital staff in the tenant
   */
  async putServiceTime(tenantId: string, input: CreateServiceTimeRequest): Promise<ChatDigitalStaffServiceTimeDto> {
    const windows: ServiceTimeWindow[] = input.windows.map((window) => ({ day_of_week: window.dayOfWeek, start: window.start, end: window.end }));
    const problems = validateServiceTime({ timeZone: input.timeZone, windows });
    const max = this.config.chatStaff.maxServiceTimeWindows;
    if (windows.length > max) problems.unshift({ field: 'windows', message: `windows has ${windows.length} entries; at most ${max} are allowed (CHAT_SERVICE_TIME_MAX_WINDOWS).` });
    if (problems.length) {
      throw new BadRequestException({
        message: `Invalid service time: ${problems.map((problem) => problem.message).join(' ')}`,
        errors: problems.map((problem) => ({ field: problem.field, messages: [problem.message] })),
      });
    }
    windows.sort((a, b) => a.day_of_week - b.day_of_week || a.start.localeCompare(b.start));
    const row = await this.dataSource.transaction(async (manager) => {
      await this.find(manager, tenantId, input.staffId, 'pessimistic_read');
      await manager.query(
        `INSERT INTO chat_digital_staff_service_time (digital_staff_id, tenant_id, time_zone, windows, out_of_hours_message, version)
         VALUES ($1, $2, $3, $4::jsonb, $5, 1)
         ON CONFLICT (digital_staff_id) DO UPDATE
           SET time_zone = EXCLUDED.time_zone, windows = EXCLUDED.windows, out_of_hours_message = EXCLUDED.out_of_hours_message,
               version = chat_digital_staff_service_time.version + 1, updated_at = statement_timestamp()`,
        [input.staffId, tenantId, input.timeZone, JSON.stringify(windows), input.outOfHoursMessage || null],
      );
      return manager.getRepository(DigitalStaffServiceTimeEntity).findOneByOrFail({ tenantId, digitalStaffId: input.staffId });
    });
    return toServiceTimeDto(row);
  }

  /**
   * Deletes the service time of a digital staff (it is then always in service).
   * @throws NotFoundException (404) no such digital staff in the tenant, or it has no service time configured
   */
  async deleteServiceTime(tenantId: string, staffId: string): Promise<void> {
    const result = await this.dataSource.getRepository(DigitalStaffServiceTimeEntity).delete({ tenantId, digitalStaffId: staffId });
    if (!result.affected) {
      await this.find(this.dataSource.manager, tenantId, staffId);
      throw new NotFoundException(`Digital staff ${staffId} has no service time configured.`);
    }
  }

  /**
   * Whether the tenant's digital staff is in service at `at` (time only: `enabled` is not considered). A digital
   * staff without a service-time configuration is always in service.
   * @param at the instant to check; default now
   * @throws NotFoundException (404) no such digital staff in the tenant
   */
  async inService(tenantId: string, digitalStaffId: string, at: Date = new Date()): Promise<boolean> {
    return (await this.serviceTimeStatus(tenantId, digitalStaffId, at)).inService;
  }

  /**
   * {@link inService} with the configuration's time zone, out-of-hours message and a readable reason.
   * @throws NotFoundException (404) no such digital staff in the tenant
   */
  async serviceTimeStatus(tenantId: string, digitalStaffId: string, at: Date = new Date()): Promise<ServiceTimeStatus> {
    const row = await this.dataSource.getRepository(DigitalStaffServiceTimeEntity).findOneBy({ tenantId, digitalStaffId });
    if (!row) {
      await this.find(this.dataSource.manager, tenantId, digitalStaffId);
      return { inService: true, configured: false, timeZone: null, outOfHoursMessage: null, reason: 'No service time is configured, so the digital staff is always in service.' };
    }
    const inService = isInServiceTime(row, at);
    const local = describeLocal(row.timeZone, at);
    return {
      inService,
      configured: true,
      timeZone: row.timeZone,
      outOfHoursMessage: row.outOfHoursMessage,
      reason: inService
        ? `Within the service time (${row.timeZone}): it is ${local} there.`
        : `Outside the service time (${row.timeZone}): it is ${local} there; change the windows with POST {T}/v1/chat/digital-staff/service-time if it should be answering now.`,
    };
  }

  /** A digital staff of the tenant by id, or null (for other chat areas). */
  findById(tenantId: string, id: string): Promise<DigitalStaffEntity | null> {
    return this.dataSource.getRepository(DigitalStaffEntity).findOneBy({ tenantId, id });
  }

  private async find(manager: EntityManager, tenantId: string, id: string, lock?: 'pessimistic_read' | 'pessimistic_write'): Promise<DigitalStaffEntity> {
    const row = await manager.getRepository(DigitalStaffEntity).findOne({ where: { tenantId, id }, ...(lock ? { lock: { mode: lock } } : {}) });
    if (!row) throw new NotFoundException(`No digital staff ${id} in this tenant.`);
    return row;
  }

  /** Saves the row; a duplicate name becomes 409. */
  private async saveUnique(row: DigitalStaffEntity): Promise<void> {
    try {
      await this.dataSource.getRepository(DigitalStaffEntity).save(row);
    } catch (error) {
      if (uniqueViolation(error) === 'ux_chat_digital_staff_tenant_name') throw new ConflictException(`The tenant already has a digital staff named "${row.name}".`);
      throw error;
    }
  }

  /** Responses with bound staff-user counts and service-time presence (two queries for any number of rows). */
  private async toDtos(tenantId: string, rows: DigitalStaffEntity[]): Promise<ChatStaffDto[]> {
    const ids = rows.map((row) => row.id);
    if (ids.length === 0) return [];
    const [counts, times] = await Promise.all([
      this.dataSource
        .getRepository(WorkChatUserEntity)
        .createQueryBuilder('u')
        .select('u.digital_staff_id', 'id')
        .addSelect('count(*)::int', 'count')
        .where('u.tenant_id = :tenantId AND u.digital_staff_id IN (:...ids)', { tenantId, ids })
        .groupBy('u.digital_staff_id')
        .getRawMany<{ id: string; count: number }>(),
      this.dataSource.getRepository(DigitalStaffServiceTimeEntity).find({ select: { digitalStaffId: true }, where: { tenantId, digitalStaffId: In(ids) } }),
    ]);
    const countById = new Map(counts.map((c) => [c.id, Number(c.count)]));
    const timed = new Set(times.map((t) => t.digitalStaffId));
    return rows.map((row) => toChatStaffDto(row, countById.get(row.id) ?? 0, timed.has(row.id)));
  }
}

function toServiceTimeDto(row: DigitalStaffServiceTimeEntity): ChatDigitalStaffServiceTimeDto {
  return toChatDigitalStaffServiceTimeDto(row, isInServiceTime(row, new Date()));
}

/** "Saturday 20:15": the local day and time of `at` in the zone. */
function describeLocal(timeZone: string, at: Date): string {
  const { day, minute } = localDayAndMinute(timeZone, at);
  return `${DAY_NAMES[day]} ${String(Math.floor(minute / 60)).padStart(2, '0')}:${String(minute % 60).padStart(2, '0')}`;
}
