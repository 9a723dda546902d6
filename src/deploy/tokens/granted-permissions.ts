import { BadRequestException } from '@nestjs/common';
import type { DeployPermission } from '../auth/deploy-principal';

/**
 * The permissions a new token gets: the requested subset of the grantable set, or all of it.
 * @param grantable the server's defaults, narrowed by a join grant's cap or by the rotating token's own permissions
 * @throws BadRequestException (400) a requested permission is not grantable
 */
export function grantedPermissions(requested: DeployPermission[] | undefined, grantable: DeployPermission[]): DeployPermission[] {
  if (!requested) return grantable;
  const refused = requested.filter((permission) => !grantable.includes(permission));
  if (refused.length > 0) throw new BadRequestException(`This server does not grant: ${refused.join(', ')}.`);
  return grantable.filter((permission) => requested.includes(permission));
}
