import { BadRequestException, Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { performance } from 'node:perf_hooks';
import { Brackets, DataSource, In } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { ContactWayEntity } from '../contact-ways/contact-way.entity';
import { ExternalContactEntity } from '../contacts/external-contact.entity';
import { WorkChatCorpEntity } from '../corps/work-chat-corp.entity';
import { DigitalStaffEntity } from '../digital-staff/digital-staff.entity';
import { DigitalStaffServiceTimeEntity } from '../digital-staff/service-time.entity';
import { CHAT_PLATFORM, type ChatPlatform } from '../platform/chat-platform.port';
import { ChatPlatformError } from '../platform/chat-platform.error';
import { WorkChatUserEntity } from '../staff-users/work-chat-user.entity';
import { DiagnoseRequest, DiagnoseResultDto, toDiagnoseResultDto } from './diagnosis.dto';
import {
  type ContactDiagnosisFacts,
  type CorpPlatformFact,
  diagnoseContact,
  diagnoseStaff,
  type PlatformFact,
  type PlatformProbe,
  type SceneFact,
  type StaffDiagnosisFacts,
  type StaffUserFact,
} from './diagnosis.rules';

/** Most bound staff users a staff diagnosis looks at (their corps are probed, their contact ways counted). */
export const MAX_DIAGNOSED_STAFF_USERS = 500;

/** A (corp, platform userid) pair of a staff user, to find the contact ways that list it. */
interface StaffRef {
  corpId: string;
  workChatUserId: string;
}

/**
 * One-click diagnosis (chat-management-api.md, Console endpoints: `POST {C}/workChat/diagnose`; issue 5, Diagnosis).
 * Gathers the facts about a contact or a digital staff of one tenant (every query filters by the tenant, so another
 * tenant's ids are simply not found) and probes the chat platform with each involved corp's credentials, bounded by
 * CHAT_DIAGNOSIS_PLATFORM_TIMEOUT_MS; the checks themselves are the pure rules of diagnosis.rules.ts. Read-only.
 */
@Injectable()
export class DiagnosisService {
  private readonly logger = new Logger(DiagnosisService.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(CHAT_PLATFORM) private readonly platform: ChatPlatform,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Diagnoses the entry the request names.
   * @throws BadRequestException (400) neither or both of chatContactId and chatStaffId
   */
  async diagnose(tenantId: string, request: DiagnoseRequest): Promise<DiagnoseResultDto> {
    const contactId = request.chatContactId;
    const staffId = request.chatStaffId;
    if (contactId !== undefined && staffId !== undefined) {
      throw new BadRequestException('Give exactly one of chatContactId (diagnose a contact) or chatStaffId (diagnose a digital staff), not both.');
    }
    if (contactId === undefined && staffId === undefined) {
      throw new BadRequestException('Give exactly one of chatContactId (diagnose a contact) or chatStaffId (diagnose a digital staff); the body names neither.');
    }
    const now = new Date();
    if (contactId !== undefined) {
      const facts = await this.contactFacts(tenantId, contactId, now);
      return toDiagnoseResultDto({ kind: 'contact', chatContactId: contactId }, diagnoseContact(facts), this.platform.mode, now);
    }
    const facts = await this.staffFacts(tenantId, staffId!, now);
    return toDiagnoseResultDto({ kind: 'staff', chatStaffId: staffId! }, diagnoseStaff(facts), this.platform.mode, now);
  }

  /** Contact → its corp and staff user (same corp) → the bound digital staff → its service time; scenes; platform. */
  private async contactFacts(tenantId: string, contactId: string, now: Date): Promise<ContactDiagnosisFacts> {
    const manager = this.dataSource.manager;
    const row = await manager.findOneBy(ExternalContactEntity, { tenantId, id: contactId });
    if (!row) {
      return {
        now,
        chatContactId: contactId,
        contact: null,
        staffUser: null,
        digitalStaff: null,
        serviceTime: null,
        scene: { visibleWays: 0, defaultWay: null },
        platform: { mode: this.platform.mode, timeoutMs: this.timeoutMs, corps: [], missingCorpIds: [] },
      };
    }
    const staffRow = await manager.findOneBy(WorkChatUserEntity, { tenantId, corpId: row.corpId, workChatUserId: row.workChatUserId });
    const digitalStaffId = staffRow?.digitalStaffId ?? null;
    const [digitalStaff, serviceTime, scene, platform] = await Promise.all([
      digitalStaffId ? manager.findOneBy(DigitalStaffEntity, { tenantId, id: digitalStaffId }) : Promise.resolve(null),
      digitalStaffId ? manager.findOneBy(DigitalStaffServiceTimeEntity, { tenantId, digitalStaffId }) : Promise.resolve(null),
      this.sceneFacts(tenantId, [{ corpId: row.corpId, workChatUserId: row.workChatUserId }], digitalStaffId),
      this.platformFacts(tenantId, [row.corpId]),
    ]);
    return {
      now,
      chatContactId: contactId,
      contact: { id: row.id, name: row.remark || row.name, aiEnabled: row.aiEnabled, workChatUserId: row.workChatUserId, corpId: row.corpId },
      staffUser: staffRow ? toStaffUserFact(staffRow) : null,
      digitalStaff: digitalStaff ? { id: digitalStaff.id, name: digitalStaff.name, enabled: digitalStaff.enabled } : null,
      serviceTime: serviceTime ? { timeZone: serviceTime.timeZone, windows: serviceTime.windows, outOfHoursMessage: serviceTime.outOfHoursMessage } : null,
      scene,
      platform,
    };
  }

  /** Digital staff → its bound staff users (capped), service time; their scenes; the platform for their corps. */
  private async staffFacts(tenantId: string, staffId: string, now: Date): Promise<StaffDiagnosisFacts> {
    const manager = this.dataSource.manager;
    const digitalStaff = await manager.findOneBy(DigitalStaffEntity, { tenantId, id: staffId });
    if (!digitalStaff) {
      return {
        now,
        chatStaffId: staffId,
        digitalStaff: null,
        boundUsers: [],
        serviceTime: null,
        scene: { visibleWays: 0, defaultWay: null },
        platform: { mode: this.platform.mode, timeoutMs: this.timeoutMs, corps: [], missingCorpIds: [] },
      };
    }
    const [boundRows, serviceTime] = await Promise.all([
      manager.find(WorkChatUserEntity, { where: { tenantId, digitalStaffId: staffId }, order: { name: 'ASC', id: 'ASC' }, take: MAX_DIAGNOSED_STAFF_USERS }),
      manager.findOneBy(DigitalStaffServiceTimeEntity, { tenantId, digitalStaffId: staffId }),
    ]);
    const [scene, platform] = await Promise.all([
      this.sceneFacts(tenantId, boundRows.map((user) => ({ corpId: user.corpId, workChatUserId: user.workChatUserId })), staffId),
      this.platformFacts(tenantId, [...new Set(boundRows.map((user) => user.corpId))]),
    ]);
    return {
      now,
      chatStaffId: staffId,
      digitalStaff: { id: digitalStaff.id, name: digitalStaff.name, enabled: digitalStaff.enabled },
      boundUsers: boundRows.map(toStaffUserFact),
      serviceTime: serviceTime ? { timeZone: serviceTime.timeZone, windows: serviceTime.windows, outOfHoursMessage: serviceTime.outOfHoursMessage } : null,
      scene,
      platform,
    };
  }

  /**
   * The default contact way of the staff users (scope `user:<corp>:<userid>`) or of the digital staff (scope
   * `ds:<id>`), preferring the staff user's own; and how many visible ways list one of the staff users or name the
   * digital staff (for the reason when there is no default).
   */
  private async sceneFacts(tenantId: string, staff: StaffRef[], digitalStaffId: string | null): Promise<SceneFact> {
    const scopes = [...staff.map((ref) => `user:${ref.corpId}:${ref.workChatUserId}`), ...(digitalStaffId ? [`ds:${digitalStaffId}`] : [])];
    const repository = this.dataSource.getRepository(ContactWayEntity);
    const defaults = scopes.length === 0 ? [] : await repository.find({ select: { id: true, name: true, defaultScope: true }, where: { tenantId, isDefault: true, defaultScope: In(scopes) } });
    defaults.sort((a, b) => scopes.indexOf(a.defaultScope ?? '') - scopes.indexOf(b.defaultScope ?? ''));
    const builder = repository.createQueryBuilder('way').where('way.tenant_id = :tenantId', { tenantId }).andWhere('way.hidden = false');
    builder.andWhere(
      new Brackets((any) => {
        if (digitalStaffId) any.orWhere('way.digital_staff_id = :digitalStaffId', { digitalStaffId });
        if (staff.length > 0) {
          any.orWhere(
            'EXISTS (SELECT 1 FROM jsonb_to_recordset(CAST(:staff AS jsonb)) AS ref(corp_id uuid, user_id text) WHERE ref.corp_id = way.corp_id AND way.work_chat_user_ids @> jsonb_build_array(ref.user_id))',
            { staff: JSON.stringify(staff.map((ref) => ({ corp_id: ref.corpId, user_id: ref.workChatUserId }))) },
          );
        }
        if (!digitalStaffId && staff.length === 0) any.orWhere('false');
      }),
    );
    const visibleWays = await builder.getCount();
    const best = defaults[0];
    return { visibleWays, defaultWay: best ? { id: String(best.id), name: best.name } : null };
  }

  /** The corps by id (in the tenant), each probed on the platform unless disabled or without secret. */
  private async platformFacts(tenantId: string, corpIds: string[]): Promise<PlatformFact> {
    const corps = corpIds.length === 0 ? [] : await this.dataSource.manager.findBy(WorkChatCorpEntity, { tenantId, id: In(corpIds) });
    const found = new Set(corps.map((corp) => corp.id));
    const facts = await Promise.all(
      corps
        .sort((a, b) => a.corpName.localeCompare(b.corpName))
        .map(async (corp): Promise<CorpPlatformFact> => {
          const fact: CorpPlatformFact = { corpId: corp.id, corpName: corp.corpName, enabled: corp.enabled, hasSecret: Boolean(corp.secret) };
          if (corp.enabled && corp.secret) fact.probe = await this.probe({ tenantId, corpId: corp.id, platformCorpId: corp.workChatCorpId, secret: corp.secret });
          return fact;
        }),
    );
    return { mode: this.platform.mode, timeoutMs: this.timeoutMs, corps: facts, missingCorpIds: corpIds.filter((id) => !found.has(id)) };
  }

  /**
   * Asks the platform to accept the corp's credentials (ChatPlatform.verifyCredentials), waiting at most
   * CHAT_DIAGNOSIS_PLATFORM_TIMEOUT_MS. A late answer is ignored. The detail of a refusal is the platform error's
   * (no secrets); anything else is logged and reported without its message.
   */
  private async probe(ctx: { tenantId: string; corpId: string; platformCorpId: string; secret: string }): Promise<PlatformProbe> {
    const started = performance.now();
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), this.timeoutMs);
    });
    const call = this.platform.verifyCredentials(ctx).then(
      () => ({ ok: true as const }),
      (error: unknown) => ({ ok: false as const, error }),
    );
    try {
      const outcome = await Promise.race([call, timedOut]);
      if (outcome === 'timeout') return { ok: false, timedOut: true, detail: `no answer within ${this.timeoutMs} ms` };
      if (outcome.ok) return { ok: true, elapsedMs: Math.round(performance.now() - started) };
      if (outcome.error instanceof ChatPlatformError) return { ok: false, timedOut: outcome.error.kind === 'timeout', detail: outcome.error.message };
      this.logger.warn(`Diagnosis: verifying the credentials of corp ${ctx.corpId} failed unexpectedly: ${outcome.error instanceof Error ? outcome.error.message : String(outcome.error)}`);
      return { ok: false, timedOut: false, detail: 'the platform call failed unexpectedly (see the service log)' };
    } finally {
      clearTimeout(timer);
    }
  }

  private get timeoutMs(): number {
    return this.config.chatDiagnosis.platformTimeoutMs;
  }
}

function toStaffUserFact(row: WorkChatUserEntity): StaffUserFact {
  return { id: row.id, name: row.name, workChatUserId: row.workChatUserId, corpId: row.corpId, digitalStaffId: row.digitalStaffId };
}
