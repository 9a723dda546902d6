import { genericPlanSafe } from './prepared.rules';

describe('genericPlanSafe (which list statements run prepared)', () => {
  it('accepts filters of equalities, nulls and flags', () => {
    expect(genericPlanSafe('SELECT 1 FROM "chat_external_contact" "contact" WHERE "contact"."tenant_id" = :tenantId AND "contact"."work_chat_user_id" = :userId AND NOT "contact"."sandbox"')).toBe(true);
    expect(genericPlanSafe('SELECT 1 FROM "t" "row" WHERE "row"."deleted_at" IS NULL AND "row"."state" = :state')).toBe(true);
    expect(genericPlanSafe('SELECT 1 FROM "deploy_namespace" "row"')).toBe(true);
  });

  it('refuses lists, ranges, patterns, alternatives and subqueries', () => {
    const base = 'SELECT 1 FROM "chat_external_contact" "contact" WHERE "contact"."tenant_id" = :tenantId';
    for (const filter of [
      '"contact"."state" IN (:...states)',
      '"contact"."state" = ANY(:states)',
      '"contact"."state_at" >= :start',
      '"contact"."state_at" < :end',
      '"contact"."name" ILIKE :pattern',
      '"contact"."name" LIKE :pattern',
      '"contact"."created_at" BETWEEN :start AND :end',
      '("contact"."state" = :a OR "contact"."state" = :b)',
      'EXISTS (SELECT 1 FROM chat_work_user staff WHERE staff.mobile = :mobile)',
      '"contact"."name" ~ :regex',
    ]) {
      expect({ filter, safe: genericPlanSafe(`${base} AND ${filter}`) }).toEqual({ filter, safe: false });
    }
  });

  it('reads the SQL around quoted names and strings, not inside them', () => {
    expect(genericPlanSafe('SELECT 1 FROM "t" "row" WHERE "row"."in (x)" = :a AND "row"."kind" = \'a<b OR c\'')).toBe(true);
    expect(genericPlanSafe('SELECT 1 FROM "t" "row" WHERE "row"."a" = \'x\' AND "row"."b" > :b')).toBe(false);
  });
});
