import { BadRequestException } from '@nestjs/common';
import { grantedPermissions } from './granted-permissions';

describe('grantedPermissions', () => {
  const all = ['deploy', 'exec', 'list', 'delete'] as const;
  it('grants everything grantable by default', () => expect(grantedPermissions(undefined, [...all])).toEqual([...all]));
  it('grants a requested subset in canonical order', () => expect(grantedPermissions(['list', 'deploy'], [...all])).toEqual(['deploy', 'list']));
  it('may grant nothing', () => expect(grantedPermissions([], [...all])).toEqual([]));
  it('refuses what the server does not grant', () => expect(() => grantedPermissions(['exec'], ['deploy', 'list'])).toThrow(BadRequestException));
});
