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
    expect(pending.upQueries.map((query) => query.query)).toEqual([]);
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
