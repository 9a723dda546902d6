import { listShape } from './list-pager';

describe('listShape', () => {
  it('names the list, each applied filter as 1 and each absent one as 0, and the order', () => {
    expect(listShape('staff-contacts', [false, true, false, false, true], { createdAt: 'DESC' })).toBe('staff-contacts:01001:{"createdAt":"DESC"}');
  });

  it('tells apart what changes the SQL: another filter applied, another order, another list', () => {
    const shapes = [
      listShape('contact-ways', [true, false], { createdAt: 'DESC' }),
      listShape('contact-ways', [false, true], { createdAt: 'DESC' }),
      listShape('contact-ways', [true, false], { createdAt: 'ASC' }),
      listShape('contact-ways', [true, false], { name: 'DESC' }),
      listShape('last-states:one', [true, false], { createdAt: 'DESC' }),
    ];
    expect(new Set(shapes).size).toBe(shapes.length);
  });
});
