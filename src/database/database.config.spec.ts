import { loadConfiguration } from '../config/config-variable';
import { coreConfig } from '../config/core.config';
import { jobsOptionsOf } from '../jobs/jobs.options';
import { databaseConfig, DEFAULT_DATABASE_SETTINGS, type DatabaseSettings, pgClientOptions } from './database.config';
import { buildDataSourceOptions } from './data-source-options';

const load = (env: Record<string, string>) => loadConfiguration<{ database: DatabaseSettings }>(env, [coreConfig, databaseConfig]).database;

describe('databaseConfig (issue 20 items 1 and 6)', () => {
  it('defaults to the documented timeouts and pool sizes (15 connections per instance)', () => {
    expect(load({})).toEqual(DEFAULT_DATABASE_SETTINGS);
    expect(DEFAULT_DATABASE_SETTINGS).toEqual({ connectTimeoutMs: 5000, statementTimeoutMs: 30_000, migrationStatementTimeoutMs: 600_000, poolMax: 10, jobsPoolMax: 4, healthTimeoutMs: 1500, preparedStatements: true });
  });

  it('reads every variable', () => {
    expect(
      load({
        DATABASE_CONNECT_TIMEOUT_MS: '2000',
        DATABASE_STATEMENT_TIMEOUT_MS: '3000',
        DATABASE_MIGRATION_STATEMENT_TIMEOUT_MS: '0',
        DATABASE_POOL_MAX: '30',
        DATABASE_JOBS_POOL_MAX: '6',
        DATABASE_HEALTH_TIMEOUT_MS: '800',
        DATABASE_PREPARED_STATEMENTS: 'false',
      }),
    ).toEqual({ connectTimeoutMs: 2000, statementTimeoutMs: 3000, migrationStatementTimeoutMs: 0, poolMax: 30, jobsPoolMax: 6, healthTimeoutMs: 800, preparedStatements: false });
  });

  it.each([
    ['DATABASE_CONNECT_TIMEOUT_MS', '0'],
    ['DATABASE_STATEMENT_TIMEOUT_MS', '-1'],
    ['DATABASE_STATEMENT_TIMEOUT_MS', 'soon'],
    ['DATABASE_POOL_MAX', '1'],
    ['DATABASE_JOBS_POOL_MAX', '1'],
    ['DATABASE_HEALTH_TIMEOUT_MS', '60000'],
    ['DATABASE_PREPARED_STATEMENTS', 'no'],
  ])('refuses %s=%s by name', (name, value) => {
    expect(() => load({ [name]: value })).toThrow(new RegExp(name));
  });

  it('gives the main pool the prepared-statements switch, on by default', () => {
    const extra = (settings: DatabaseSettings) => (buildDataSourceOptions('postgres://x/y', settings) as { extra: Record<string, unknown> }).extra;
    expect(extra(DEFAULT_DATABASE_SETTINGS)).toMatchObject({ preparedStatements: true });
    expect(extra(load({ DATABASE_PREPARED_STATEMENTS: 'false' }))).toMatchObject({ preparedStatements: false });
  });

  it('gives pg clients the connect, statement and client-side read timeouts, and none for an unlimited migration', () => {
    expect(pgClientOptions(DEFAULT_DATABASE_SETTINGS)).toMatchObject({ connectionTimeoutMillis: 5000, statement_timeout: 30_000, query_timeout: 30_500, keepAlive: true });
    const unlimited = pgClientOptions(DEFAULT_DATABASE_SETTINGS, 0);
    expect(unlimited).not.toHaveProperty('statement_timeout');
    expect(unlimited).not.toHaveProperty('query_timeout');
  });

  it('gives job handlers 70 % of the shutdown grace, at least 1 s, and the jobs pool size', () => {
    expect(jobsOptionsOf({ shutdownGraceMs: 10_000, database: DEFAULT_DATABASE_SETTINGS })).toEqual({ shutdownTimeoutMs: 7000, database: DEFAULT_DATABASE_SETTINGS });
    expect(jobsOptionsOf({ shutdownGraceMs: 0 }).shutdownTimeoutMs).toBe(1000);
  });
});
