import { QueryFailedError } from 'typeorm';
import { uniqueViolation } from '../common/db-support';

describe('db-support', () => {
  it('names the unique index of a 23505 violation, and nothing for other errors', () => {
    const duplicate = new QueryFailedError('INSERT', [], Object.assign(new Error('duplicate key'), { code: '23505', constraint: 'ux_chat_variable_scope_tenant_source_name' }));
    expect(uniqueViolation(duplicate)).toBe('ux_chat_variable_scope_tenant_source_name');
    const notNull = new QueryFailedError('INSERT', [], Object.assign(new Error('null value'), { code: '23502' }));
    expect(uniqueViolation(notNull)).toBeUndefined();
    expect(uniqueViolation(new Error('duplicate key'))).toBeUndefined();
  });
});
