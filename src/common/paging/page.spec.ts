import { BadRequestException } from '@nestjs/common';
import { toOrder, toPage } from './page';

describe('paging', () => {
  it('computes total pages', () => {
    expect(toPage(['a'], 41, { page: 2, size: 20 })).toEqual({ content: ['a'], page: 2, size: 20, totalElements: 41, totalPages: 3 });
    expect(toPage([], 0, { page: 0, size: 20 }).totalPages).toBe(0);
  });
  it('maps allow-listed sort fields and refuses others', () => {
    const allowed = { createdAt: 'createdAt', name: 'projectName' };
    expect(toOrder(['name,desc', 'createdAt'], allowed, { createdAt: 'DESC' })).toEqual({ projectName: 'DESC', createdAt: 'ASC' });
    expect(toOrder(undefined, allowed, { createdAt: 'DESC' })).toEqual({ createdAt: 'DESC' });
    expect(() => toOrder(['secretHash,asc'], allowed, {})).toThrow(BadRequestException);
  });
});
