import { QueryFailedError } from 'typeorm';
import { likeContains, uniqueViolation } from './db-errors';

describe('db-errors', () => {
  it('names the unique index of a 23505 violation, and nothing for other errors', () => {
    const duplicate = new QueryFailedError('INSERT', [], Object.assign(new Error('duplicate key'), { code: '23505', constraint: 'ux_chat_digital_staff_tenant_name' }));
    expect(uniqueViolation(duplicate)).toBe('ux_chat_digital_staff_tenant_name');
    const notNull = new QueryFailedError('INSERT', [], Object.assign(new Error('null value'), { code: '23502', column: 'name' }));
    expect(uniqueViolation(notNull)).toBeUndefined();
    expect(uniqueViolation(new Error('duplicate key'))).toBeUndefined();
  });

  it('escapes LIKE wildcards and the escape character so user text matches literally', () => {
    expect(likeContains('zhang')).toBe('%zhang%');
    expect(likeContains('100%_a\\b')).toBe('%100\\%\\_a\\\\b%');
  });
});
