import { getDataSourceToken } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { startTestApp, TestApp } from '../support/test-app';

describe('migrations (DESIGN.md, Persistence: schema from migrations only)', () => {
  let testApp: TestApp;
  beforeAll(async () => {
    testApp = await startTestApp();
  });
  afterAll(() => testApp?.close());

  it('build exactly the schema the entities describe', async () => {
    const dataSource = testApp.app.get<DataSource>(getDataSourceToken());
    const pending = await dataSource.driver.createSchemaBuilder().log();
    // The list-sort and search indexes (ix_ls_, ix_tg_, ix_gr_; issue 23) belong to the migrations alone: entities
    // can't declare GIN operator classes, and test/database/plan-checks.e2e-spec.ts asserts that each one serves its
    // list. Every other difference between the entities and the migrated schema still fails here.
    const migrationOwnedIndex = /^DROP INDEX "[^"]+"\."ix_(?:ls|tg|gr)_/;
    expect(pending.upQueries.map((query) => query.query).filter((query) => !migrationOwnedIndex.test(query))).toEqual([]);
  });

  it('have all run and can be undone and redone', async () => {
    const dataSource = testApp.app.get<DataSource>(getDataSourceToken());
    expect(await dataSource.showMigrations()).toBe(false);
    await dataSource.undoLastMigration();
    expect(await dataSource.showMigrations()).toBe(true);
    await dataSource.runMigrations();
    expect(await dataSource.showMigrations()).toBe(false);
  });
});
