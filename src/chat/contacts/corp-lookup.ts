import { ConflictException, NotFoundException } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { WorkChatCorpEntity } from '../corps/work-chat-corp.entity';
import type { ChatCorpContext } from '../platform';

/**
 * Finding a tenant's corp the ways the contact paths name it: by `corpName` (`{T}/v1/workChat/...` bodies,
 * `/api/v1/workChat/customer/{corpName}/remark`), by Atrium's corp id (console requests) or by the platform's corp id
 * (`/api/v1/workChat/tag/{workCorpId}/...`). Always within the tenant: another tenant's corp answers 404.
 */

/** @throws NotFoundException (404) the tenant has no corp of that name */
export async function findCorpByName(manager: EntityManager, tenantId: string, corpName: string): Promise<WorkChatCorpEntity> {
  const corp = await manager.findOneBy(WorkChatCorpEntity, { tenantId, corpName });
  if (!corp) throw new NotFoundException(`No corp named "${corpName}" in this tenant.`);
  return corp;
}

/** @throws NotFoundException (404) the tenant has no corp with this id */
export async function findCorpById(manager: EntityManager, tenantId: string, corpId: string): Promise<WorkChatCorpEntity> {
  const corp = await manager.findOneBy(WorkChatCorpEntity, { tenantId, id: corpId });
  if (!corp) throw new NotFoundException(`No corp ${corpId} in this tenant.`);
  return corp;
}

/** @throws NotFoundException (404) the tenant links no corp with this platform corp id */
export async function findCorpByPlatformId(manager: EntityManager, tenantId: string, workChatCorpId: string): Promise<WorkChatCorpEntity> {
  const corp = await manager.findOneBy(WorkChatCorpEntity, { tenantId, workChatCorpId });
  if (!corp) throw new NotFoundException(`No corp with platform corp id "${workChatCorpId}" in this tenant.`);
  return corp;
}

/**
 * The platform port's corp context of a corp record (the secret goes to the platform only).
 * @throws ConflictException (409) the corp is disabled, so it is not used to reach the platform
 */
export function corpContext(corp: WorkChatCorpEntity): ChatCorpContext {
  if (!corp.enabled) throw new ConflictException(`Corp "${corp.corpName}" is disabled; enable it (PUT {C}/workChat/corps/${corp.id}) to reach the chat platform.`);
  return { tenantId: corp.tenantId, corpId: corp.id, platformCorpId: corp.workChatCorpId, secret: corp.secret ?? '' };
}
