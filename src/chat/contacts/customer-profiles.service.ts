import { BadRequestException, HttpStatus, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { ProblemException } from '../../common/http/problem-details';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { ChatCorpDirectory } from '../corps/corp-directory';
import { findCorpByName } from './corp-lookup';
import { applyProfileUpdate, mergePartnerInfo, PARTNER_PROFILE_NAME, PROFILE_NAME_PATTERN, profileSizeBytes, type PartnerInfo, type ProfileAttributes } from './customer-profile.rules';
import { BasicCustomerProfile, CustomerProfileQuery, CustomerProfileUpdateRequest, ImproveCustomerInfoRequestV1, ImproveUserInfoRequestV1 } from './customer-profiles.dto';
import { ExternalContactEntity } from './external-contact.entity';

/** The rows of one customer (same corp and external user id), locked when read in a transaction. */
interface CustomerRows {
  corpId: string;
  externalUserId: string;
  rows: ExternalContactEntity[];
}

/**
 * Customer profiles (chat-management-api.md, Customer profile: `{T}/v1/customers/profiles/{name}`; Partner customer
 * info). A profile belongs to the customer (corp + external user id), not to one staff member's contact: it is kept
 * identical on every contact row of the customer, written in one transaction with those rows locked, and a new
 * contact of a known customer inherits it (contact-sync.service.ts).
 */
@Injectable()
export class CustomerProfilesService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly corpDirectory: ChatCorpDirectory,
  ) {}

  /**
   * @throws BadRequestException (400) bad profile name, not exactly one of customerId / chatContactId, a customer id
   *   found in several corps; NotFoundException (404) unknown customer or no profile of that name
   */
  async get(tenantId: string, name: string, query: CustomerProfileQuery): Promise<BasicCustomerProfile> {
    checkProfileName(name);
    const customer = await this.findCustomer(this.dataSource.manager, tenantId, query, false);
    const attributes = customer.rows[0].profile?.[name];
    if (!attributes) throw new NotFoundException(`Customer ${customer.externalUserId} has no profile named "${name}" (it has: ${Object.keys(customer.rows[0].profile ?? {}).sort().join(', ') || 'none'}).`);
    return this.toProfile(tenantId, name, customer);
  }

  /**
   * Creates or changes a named profile (merge by default, see customer-profile.rules.ts).
   * @throws BadRequestException (400); NotFoundException (404) unknown customer; ProblemException (413) too large
   */
  async update(tenantId: string, name: string, input: CustomerProfileUpdateRequest): Promise<void> {
    checkProfileName(name);
    await this.dataSource.transaction(async (manager) => {
      const customer = await this.findCustomer(manager, tenantId, input, true);
      const next = applyProfileUpdate(customer.rows[0].profile?.[name], input.attributes, input.replace ?? false);
      await this.writeProfile(manager, tenantId, customer, name, next);
    });
  }

  /**
   * Partner info about a user of the partner's app, found by open id or union id: merged into the `partner` profile
   * of the customer; a customer found by union id gets the open id when it has none.
   * @returns the customer's id (platform external user id)
   * @throws BadRequestException (400) neither id, or the id matches customers of several corps without corpName;
   *   NotFoundException (404) no customer with the id
   */
  async improveUserInfo(tenantId: string, input: ImproveUserInfoRequestV1): Promise<string> {
    if (!input.openId && !input.unionId) throw new BadRequestException('Give openId or unionId to find the customer.');
    return this.dataSource.transaction(async (manager) => {
      const corpId = input.corpName ? (await findCorpByName(manager, tenantId, input.corpName)).id : undefined;
      const builder = manager.getRepository(ExternalContactEntity).createQueryBuilder('contact').select(['contact.corpId', 'contact.externalUserId']).where('contact.tenant_id = :tenantId', { tenantId });
      if (corpId) builder.andWhere('contact.corp_id = :corpId', { corpId });
      if (input.openId && input.unionId) builder.andWhere('(contact.open_id = :openId OR contact.union_id = :unionId)', { openId: input.openId, unionId: input.unionId });
      else if (input.openId) builder.andWhere('contact.open_id = :openId', { openId: input.openId });
      else builder.andWhere('contact.union_id = :unionId', { unionId: input.unionId });
      const matches = await builder.getMany();
      const customers = [...new Map(matches.map((row) => [`${row.corpId}\u0000${row.externalUserId}`, row])).values()];
      const described = input.openId ? `open id "${input.openId}"` : `union id "${input.unionId}"`;
      if (customers.length === 0) throw new NotFoundException(`No customer with ${described}${input.corpName ? ` in corp "${input.corpName}"` : ''}.`);
      if (customers.length > 1) throw new BadRequestException(`${customers.length} customers match ${described}${input.corpName ? '' : '; give corpName'}, so the info cannot be attributed.`);
      const customer = await this.lockCustomer(manager, tenantId, customers[0].corpId, customers[0].externalUserId);
      const info: PartnerInfo = { name: input.name, nickname: input.nickname, mobile: input.mobile, gender: input.gender, openId: input.openId, unionId: input.unionId, attributes: input.attributes };
      await this.writeProfile(manager, tenantId, customer, PARTNER_PROFILE_NAME, mergePartnerInfo(customer.rows[0].profile?.[PARTNER_PROFILE_NAME], info, 'improveUserInfo', new Date()));
      if (input.openId) {
        await manager.query(`UPDATE chat_external_contact SET open_id = $4 WHERE tenant_id = $1 AND corp_id = $2 AND external_user_id = $3 AND open_id IS NULL`, [tenantId, customer.corpId, customer.externalUserId, input.openId]);
      }
      return customer.externalUserId;
    });
  }

  /**
   * Partner info about a customer named by corp and external user id, merged into the `partner` profile.
   * @returns the customer's id (platform external user id)
   * @throws NotFoundException (404) unknown corp or customer
   */
  async improveCustomerInfo(tenantId: string, input: ImproveCustomerInfoRequestV1): Promise<string> {
    return this.dataSource.transaction(async (manager) => {
      const corp = await findCorpByName(manager, tenantId, input.corpName);
      const customer = await this.lockCustomer(manager, tenantId, corp.id, input.externalUserId);
      if (customer.rows.length === 0) throw new NotFoundException(`Corp "${corp.corpName}" has no customer ${input.externalUserId}.`);
      const info: PartnerInfo = { name: input.name, mobile: input.mobile, gender: input.gender, company: input.company, attributes: input.attributes };
      await this.writeProfile(manager, tenantId, customer, PARTNER_PROFILE_NAME, mergePartnerInfo(customer.rows[0].profile?.[PARTNER_PROFILE_NAME], info, 'improveCustomerInfo', new Date()));
      return customer.externalUserId;
    });
  }

  // ---------------------------------------------------------------- internals

  /** Resolves exactly one of customerId / chatContactId to the customer's rows (locked when `lock`). */
  private async findCustomer(manager: EntityManager, tenantId: string, query: CustomerProfileQuery, lock: boolean): Promise<CustomerRows> {
    if (Boolean(query.customerId) === Boolean(query.chatContactId)) throw new BadRequestException('Give exactly one of customerId and chatContactId.');
    let corpId: string;
    let externalUserId: string;
    if (query.chatContactId) {
      const contact = await manager.findOne(ExternalContactEntity, { select: { corpId: true, externalUserId: true }, where: { tenantId, id: query.chatContactId } });
      if (!contact) throw new NotFoundException(`No contact ${query.chatContactId} in this tenant.`);
      ({ corpId, externalUserId } = contact);
    } else {
      const corps = await manager
        .getRepository(ExternalContactEntity)
        .createQueryBuilder('contact')
        .select('DISTINCT contact.corp_id', 'corpId')
        .where('contact.tenant_id = :tenantId AND contact.external_user_id = :externalUserId', { tenantId, externalUserId: query.customerId })
        .getRawMany<{ corpId: string }>();
      if (corps.length === 0) throw new NotFoundException(`No customer ${query.customerId} in this tenant.`);
      if (corps.length > 1) throw new BadRequestException(`Customer id ${query.customerId} exists in ${corps.length} corps; name the customer by chatContactId instead.`);
      corpId = corps[0].corpId;
      externalUserId = query.customerId!;
    }
    return lock ? this.lockCustomer(manager, tenantId, corpId, externalUserId) : { corpId, externalUserId, rows: await this.customerRows(manager, tenantId, corpId, externalUserId, false) };
  }

  private async lockCustomer(manager: EntityManager, tenantId: string, corpId: string, externalUserId: string): Promise<CustomerRows> {
    return { corpId, externalUserId, rows: await this.customerRows(manager, tenantId, corpId, externalUserId, true) };
  }

  /** The customer's rows, most recently changed first (the first row's profile is the customer's). */
  private customerRows(manager: EntityManager, tenantId: string, corpId: string, externalUserId: string, lock: boolean): Promise<ExternalContactEntity[]> {
    return manager.find(ExternalContactEntity, {
      where: { tenantId, corpId, externalUserId },
      order: { updatedAt: 'DESC', id: 'ASC' },
      ...(lock ? { lock: { mode: 'pessimistic_write' as const } } : {}),
    });
  }

  /** Writes one named profile on every row of the customer. @throws ProblemException (413) too large */
  private async writeProfile(manager: EntityManager, tenantId: string, customer: CustomerRows, name: string, attributes: ProfileAttributes): Promise<void> {
    const max = this.config.chatContacts.profileMaxBytes;
    const size = profileSizeBytes(attributes);
    if (size > max) throw new ProblemException(HttpStatus.PAYLOAD_TOO_LARGE, `Profile "${name}" would be ${size} bytes of JSON; at most ${max} (CHAT_CUSTOMER_PROFILE_MAX_BYTES).`);
    const base = customer.rows[0]?.profile ?? {};
    await manager.query(`UPDATE chat_external_contact SET profile = $4::jsonb, updated_at = now() WHERE tenant_id = $1 AND corp_id = $2 AND external_user_id = $3`, [
      tenantId,
      customer.corpId,
      customer.externalUserId,
      JSON.stringify({ ...base, [name]: attributes }),
    ]);
  }

  private async toProfile(tenantId: string, name: string, customer: CustomerRows): Promise<BasicCustomerProfile> {
    const [first] = customer.rows;
    const names = await this.corpDirectory.names(tenantId, [customer.corpId]);
    return {
      profileName: name,
      customerId: customer.externalUserId,
      corpName: names.get(customer.corpId) ?? '',
      chatContactIds: customer.rows.map((row) => row.id).sort(),
      name: first.name,
      gender: first.gender,
      mobile: customer.rows.find((row) => row.mobile)?.mobile ?? null,
      openId: customer.rows.find((row) => row.openId)?.openId ?? null,
      unionId: first.unionId,
      attributes: first.profile[name],
      profileNames: Object.keys(first.profile).sort(),
    };
  }
}

/** @throws BadRequestException (400) a name outside PROFILE_NAME_PATTERN */
function checkProfileName(name: string): void {
  if (!PROFILE_NAME_PATTERN.test(name)) throw new BadRequestException(`Profile name "${name}" is not valid: a letter, then up to 63 letters, digits, "_", "." or "-".`);
}
