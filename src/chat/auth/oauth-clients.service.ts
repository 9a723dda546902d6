import { BadRequestException, ConflictException, Injectable, NotFoundException, Optional } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, IsNull } from 'typeorm';
import { randomHexId, randomSecret, sha256Hex } from '../../common/crypto/secrets';
import { Page, toOrder, toPage } from '../../common/paging/page';
import { TenantEntity } from '../tenants/tenant.entity';
import { PLATFORM_ADMIN_SCOPE, TENANT_CLIENT_SCOPES } from './chat-scopes';
import { OAuthClientEntity } from './oauth-client.entity';
import { OAUTH_CLIENT_SORT_FIELDS, CreatedOAuthClientDto, CreateOAuthClientRequest, OAuthClientDto, OAuthClientPageQuery, toOAuthClientDto } from './oauth-clients.dto';
import { ListPager } from '../../common/paging/list-pager';

/** Client metadata in oidc-provider's (RFC 7591) form, with the tenant as the extra `tenant_id` member. */
export interface OidcClientMetadata {
  client_id: string;
  /** The SHA-256 hash of the secret: oidc-provider compares with it through the Client prototype hook. */
  client_secret: string;
  grant_types: string[];
  response_types: string[];
  redirect_uris: string[];
  token_endpoint_auth_method: 'client_secret_basic';
  scope: string;
  tenant_id?: string;
}

/**
 * OAuth2 clients of the built-in authorization server (issue 5: "clients created per tenant with a CLI command").
 * Used by the platform API, the `atrium-chat` CLI and the authorization server's client lookup.
 */
@Injectable()
export class OAuthClientsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Optional() private readonly pager: ListPager = ListPager.withDefaults(),
  ) {}

  /**
   * Creates a client and returns its secret, the only time it is visible.
   * @throws BadRequestException (400) neither or both of tenantId / platformAdmin, or scopes on an admin client
   * @throws NotFoundException (404) unknown tenant
   * @throws ConflictException (409) the tenant is disabled
   */
  async create(input: CreateOAuthClientRequest): Promise<CreatedOAuthClientDto> {
    const platformAdmin = input.platformAdmin === true;
    if (platformAdmin === Boolean(input.tenantId)) {
      throw new BadRequestException('Give either tenantId (a tenant client) or platformAdmin: true (a platform-admin client).');
    }
    if (platformAdmin && input.scopes) throw new BadRequestException('A platform-admin client always has the platform:admin scope only; leave scopes out.');
    if (input.tenantId) {
      const tenant = await this.dataSource.getRepository(TenantEntity).findOneBy({ id: input.tenantId });
      if (!tenant) throw new NotFoundException(`No tenant "${input.tenantId}"; create it first.`);
      if (tenant.status !== 'active') throw new ConflictException(`Tenant "${input.tenantId}" is disabled; enable it before creating clients.`);
    }
    const scopes = platformAdmin ? [PLATFORM_ADMIN_SCOPE] : TENANT_CLIENT_SCOPES.filter((scope) => (input.scopes ?? TENANT_CLIENT_SCOPES).includes(scope));
    const clientSecret = randomSecret(32);
    const row = this.dataSource.getRepository(OAuthClientEntity).create({
      clientId: `atc_${randomHexId(24)}`,
      tenantId: input.tenantId ?? null,
      name: input.name?.trim() || (platformAdmin ? 'platform admin' : `${input.tenantId} client`),
      scopes,
      secretHash: sha256Hex(clientSecret),
      revokedAt: null,
    });
    await this.dataSource.getRepository(OAuthClientEntity).insert(row);
    return { ...toOAuthClientDto(row), clientSecret };
  }

  /** Active clients (and revoked ones with includeRevoked), newest first; filter by tenant. */
  async list(query: OAuthClientPageQuery): Promise<Page<OAuthClientDto>> {
    const order = toOrder(query.sort, OAUTH_CLIENT_SORT_FIELDS, { createdAt: 'DESC' });
    const { rows, ...slice } = await this.pager.find(this.dataSource.getRepository(OAuthClientEntity), {
      where: { ...(query.tenantId ? { tenantId: query.tenantId } : {}), ...(query.includeRevoked ? {} : { revokedAt: IsNull() }) },
      order,
    }, query);
    return toPage(rows.map(toOAuthClientDto), slice, query);
  }

  /**
   * Revokes a client: it gets no more tokens (tokens already issued live until they expire). Revoking twice is
   * harmless. @throws NotFoundException (404) unknown client
   */
  async revoke(clientId: string): Promise<void> {
    const repository = this.dataSource.getRepository(OAuthClientEntity);
    const result = await repository.update({ clientId, revokedAt: IsNull() }, { revokedAt: new Date() });
    if (!result.affected && !(await repository.existsBy({ clientId }))) throw new NotFoundException(`No OAuth2 client "${clientId}".`);
  }

  /**
   * The metadata oidc-provider authenticates a client with, or undefined for an unknown or revoked client, or one
   * whose tenant is missing or disabled (so no token is issued for it).
   */
  async oidcMetadata(clientId: string): Promise<OidcClientMetadata | undefined> {
    const row = await this.dataSource
      .getRepository(OAuthClientEntity)
      .createQueryBuilder('client')
      .leftJoin(TenantEntity, 'tenant', 'tenant.id = client.tenant_id')
      .where('client.client_id = :clientId', { clientId })
      .andWhere('client.revoked_at IS NULL')
      .andWhere("(client.tenant_id IS NULL OR tenant.status = 'active')")
      .getOne();
    if (!row) return undefined;
    return {
      client_id: row.clientId,
      client_secret: row.secretHash,
      grant_types: ['client_credentials'],
      response_types: [],
      redirect_uris: [],
      token_endpoint_auth_method: 'client_secret_basic',
      scope: row.scopes.join(' '),
      ...(row.tenantId ? { tenant_id: row.tenantId } : {}),
    };
  }
}
