import { Inject, Injectable, Logger, NotFoundException, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { WorkChatCorpEntity } from '../corps/work-chat-corp.entity';
import {
  CHAT_PLATFORM,
  ChatPlatformEvents,
  type ChatPlatform,
  type ExternalContactAddedEvent,
  type PlatformExternalContact,
  type PlatformFollow,
  type PlatformTagGroup,
} from '../platform';
import { WorkChatUserEntity } from '../staff-users/work-chat-user.entity';
import { hasCorpTags, resolveFollowTags } from './contact-tags.rules';
import { corpContext, findCorpById } from './corp-lookup';
import type { ExternalContactTag } from './external-contact.entity';
import { SyncCustomerRequest, SyncCustomerResultDto } from './guide-sync.dto';

/** The platform's fields of one contact, as written by {@link ContactSyncService.upsert}. */
export interface ContactUpsert {
  externalUserId: string;
  workChatUserId: string;
  name: string;
  avatarUrl: string | null;
  type: number;
  gender: number;
  unionId: string | null;
  customerCorpName: string | null;
  remark: string | null;
  description: string | null;
  mobile: string | null;
  tags: ExternalContactTag[];
  state: string | null;
  /** When the platform says the state was set (the customer added the staff member). */
  stateAt: Date;
  addWay: number;
  addedAt: Date;
}

/** Counts of one upsert. */
export interface UpsertCounts {
  created: number;
  updated: number;
  unchanged: number;
}

/**
 * Builds the upsert of a customer as one staff member has them (a platform follow), with tags resolved against the
 * corp's tag groups. Pure.
 */
export function toContactUpsert(contact: PlatformExternalContact, follow: PlatformFollow, groups: PlatformTagGroup[]): ContactUpsert {
  return {
    externalUserId: contact.externalUserId,
    workChatUserId: follow.userId,
    name: contact.name,
    avatarUrl: contact.avatarUrl ?? null,
    type: contact.type,
    gender: contact.gender,
    unionId: contact.unionId ?? null,
    customerCorpName: contact.corpName ?? null,
    remark: follow.remark || null,
    description: follow.description || null,
    mobile: follow.remarkMobiles[0] ?? null,
    tags: resolveFollowTags(follow.tags, groups),
    state: follow.state || null,
    stateAt: follow.createdAt,
    addWay: follow.addWay,
    addedAt: follow.createdAt,
  };
}

/**
 * Writes what the platform says about customers into chat_external_contact (issue 5, External contacts; guide
 * `syncCustomer`; the simulator's `external_contact.added` event):
 * - one row per (corp, customer, staff member), inserted or updated with one `INSERT … ON CONFLICT` statement, so
 *   concurrent events and syncs never duplicate a contact and a repeated sync changes nothing (idempotent);
 * - the platform's fields (name, avatar, remark, description, mobile, tags, add time) are overwritten; Atrium's own
 *   (AI switch, profiles, open id) and the remarked company (not in the platform's customer lists) are kept; a new row of a customer already known through another staff member
 *   inherits the customer's profiles and open id;
 * - the "last state" moves only to a newer one: the platform's state (with the add time) replaces the stored one
 *   only when it is newer than the stored `stateAt`, so a batchChangeState is not undone by a later sync, but a
 *   customer adding the staff member again through another contact way is.
 */
@Injectable()
export class ContactSyncService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(ContactSyncService.name);
  private unsubscribe?: () => void;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(CHAT_PLATFORM) private readonly platform: ChatPlatform,
    private readonly events: ChatPlatformEvents,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Subscribes to `external_contact.added` (ChatPlatformEvents). */
  onModuleInit(): void {
    this.unsubscribe = this.events.subscribe(async (event) => {
      if (event.type === 'external_contact.added') await this.handleContactAdded(event);
    });
  }

  onModuleDestroy(): void {
    this.unsubscribe?.();
  }

  /**
   * A customer added a staff member: reads the customer from the platform and stores the contact with the event's
   * state. An event of a corp Atrium does not know (deleted meanwhile) is logged and dropped.
   * @throws ChatPlatformError when the platform cannot be read; ConflictException when the corp is disabled
   */
  async handleContactAdded(event: ExternalContactAddedEvent): Promise<void> {
    const corp = await this.dataSource.getRepository(WorkChatCorpEntity).findOneBy({ tenantId: event.tenantId, id: event.corpId });
    if (!corp) {
      this.logger.warn(`dropped external_contact.added of unknown corp ${event.corpId} (tenant ${event.tenantId})`);
      return;
    }
    const ctx = corpContext(corp);
    const detail = await this.platform.getExternalContact(ctx, event.externalUserId);
    const follow: PlatformFollow = detail.followers.find((candidate) => candidate.userId === event.userId) ?? {
      userId: event.userId,
      remarkMobiles: [],
      createdAt: event.occurredAt,
      addWay: 0,
      tags: [],
    };
    const groups = hasCorpTags(follow.tags) ? await this.platform.listTags(ctx) : [];
    await this.upsert(this.dataSource.manager, corp, [toContactUpsert(detail.contact, { ...follow, state: event.state ?? follow.state, createdAt: event.occurredAt }, groups)]);
  }

  /**
   * Guide `syncCustomer`: pulls the staff user's customers from the platform page by page (cursor paging, page size
   * CHAT_SYNC_PAGE_SIZE, at most CHAT_SYNC_MAX_ITEMS) and upserts them. Each page is one statement; running it
   * again changes nothing.
   * @throws NotFoundException (404) unknown corp or staff user; ConflictException (409) disabled corp;
   *   ChatPlatformError (mapped) when the platform refuses
   */
  async syncCustomers(tenantId: string, input: SyncCustomerRequest): Promise<SyncCustomerResultDto> {
    const corp = await findCorpById(this.dataSource.manager, tenantId, input.corpId);
    await requireStaffUser(this.dataSource.manager, corp, input.workChatUserId);
    const ctx = corpContext(corp);
    const { syncMaxItems, syncPageSize } = this.config.chatContacts;
    const result: SyncCustomerResultDto = { fetched: 0, created: 0, updated: 0, unchanged: 0, truncated: false };
    let groups: PlatformTagGroup[] | undefined;
    let cursor: string | undefined;
    do {
      const page = await this.platform.listExternalContacts(ctx, { userIds: [input.workChatUserId], cursor, limit: syncPageSize });
      const items = page.items.slice(0, syncMaxItems - result.fetched);
      if (groups === undefined && items.some((item) => hasCorpTags(item.follow.tags))) groups = await this.platform.listTags(ctx);
      const counts = await this.upsert(this.dataSource.manager, corp, items.map((item) => toContactUpsert(item.contact, item.follow, groups ?? [])));
      result.fetched += items.length;
      result.created += counts.created;
      result.updated += counts.updated;
      result.unchanged += counts.unchanged;
      cursor = page.nextCursor;
      if (result.fetched >= syncMaxItems && (cursor || items.length < page.items.length)) {
        result.truncated = true;
        break;
      }
    } while (cursor);
    return result;
  }

  /**
   * Inserts or updates contacts of one corp in one statement (see the class comment for what is kept). Entries
   * naming the same (customer, staff member) twice count once (the last wins).
   */
  async upsert(manager: EntityManager, corp: Pick<WorkChatCorpEntity, 'tenantId' | 'id'>, entries: ContactUpsert[]): Promise<UpsertCounts> {
    const unique = [...new Map(entries.map((entry) => [`${entry.workChatUserId}\u0000${entry.externalUserId}`, entry])).values()];
    if (unique.length === 0) return { created: 0, updated: 0, unchanged: 0 };
    const records = unique.map((entry) => ({
      external_user_id: entry.externalUserId,
      work_chat_user_id: entry.workChatUserId,
      name: entry.name,
      avatar_url: entry.avatarUrl,
      type: entry.type,
      gender: entry.gender,
      union_id: entry.unionId,
      customer_corp_name: entry.customerCorpName,
      remark: entry.remark,
      description: entry.description,
      mobile: entry.mobile,
      tags: entry.tags,
      state: entry.state,
      state_at: entry.stateAt.toISOString(),
      add_way: entry.addWay,
      added_at: entry.addedAt.toISOString(),
    }));
    const platformColumns = ['name', 'avatar_url', 'type', 'gender', 'union_id', 'customer_corp_name', 'remark', 'description', 'mobile', 'tags', 'add_way', 'added_at'];
    const rows: { inserted: boolean }[] = await manager.query(
      `INSERT INTO chat_external_contact AS c
         (tenant_id, corp_id, external_user_id, work_chat_user_id, ${platformColumns.join(', ')}, state, state_at, open_id, profile)
       SELECT $1::varchar, $2::uuid, v.external_user_id, v.work_chat_user_id, ${platformColumns.map((column) => `v.${column}`).join(', ')}, v.state, v.state_at,
         (SELECT s.open_id FROM chat_external_contact s
           WHERE s.tenant_id = $1::varchar AND s.external_user_id = v.external_user_id AND s.corp_id = $2::uuid AND s.open_id IS NOT NULL
           ORDER BY s.updated_at DESC LIMIT 1),
         COALESCE((SELECT s.profile FROM chat_external_contact s
           WHERE s.tenant_id = $1::varchar AND s.external_user_id = v.external_user_id AND s.corp_id = $2::uuid
           ORDER BY s.updated_at DESC LIMIT 1), '{}'::jsonb)
       FROM jsonb_to_recordset($3::jsonb) AS v(
         external_user_id varchar, work_chat_user_id varchar, name varchar, avatar_url text, type smallint, gender smallint,
         union_id varchar, customer_corp_name varchar, remark varchar, description varchar, mobile varchar,
         tags jsonb, state varchar, state_at timestamptz, add_way smallint, added_at timestamptz)
       ON CONFLICT (tenant_id, corp_id, external_user_id, work_chat_user_id) DO UPDATE SET
         ${platformColumns.map((column) => `${column} = EXCLUDED.${column}`).join(', ')},
         state = CASE WHEN EXCLUDED.state_at > COALESCE(c.state_at, '-infinity') THEN EXCLUDED.state ELSE c.state END,
         state_at = GREATEST(c.state_at, EXCLUDED.state_at),
         updated_at = now()
       WHERE NOT c.sandbox -- an evaluation sandbox contact is never the platform's
         AND ((${platformColumns.map((column) => `c.${column}`).join(', ')}) IS DISTINCT FROM (${platformColumns.map((column) => `EXCLUDED.${column}`).join(', ')})
          OR EXCLUDED.state_at > COALESCE(c.state_at, '-infinity'))
       RETURNING (c.xmax = 0) AS inserted`,
      [corp.tenantId, corp.id, JSON.stringify(records)],
    );
    const created = rows.filter((row) => row.inserted).length;
    return { created, updated: rows.length - created, unchanged: unique.length - rows.length };
  }
}

/**
 * The staff user must be one of the corp's in Atrium (guide syncs work on a staff user the console knows).
 * @throws NotFoundException (404)
 */
export async function requireStaffUser(manager: EntityManager, corp: WorkChatCorpEntity, workChatUserId: string): Promise<void> {
  const known = await manager.existsBy(WorkChatUserEntity, { tenantId: corp.tenantId, corpId: corp.id, workChatUserId });
  if (!known) throw new NotFoundException(`Corp "${corp.corpName}" has no staff user ${workChatUserId}; add it first (POST {C}/workChat/user).`);
}
