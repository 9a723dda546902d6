import { Injectable, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ReadinessRegistry } from '../common/health/readiness';
import { DatabaseHealth } from './database-health';

/**
 * Registers `database` and `migrations` in `/api/health/ready` (issue 15 item 3): the database answers `SELECT 1`
 * within DATABASE_HEALTH_TIMEOUT_MS (the same bounded probe as GET /api/health); every migration of this build is
 * applied (checked until it is once true: an applied migration stays applied).
 */
@Injectable()
export class DatabaseReadiness implements OnModuleInit {
  private migrationsApplied = false;

  constructor(
    private readonly registry: ReadinessRegistry,
    private readonly database: DatabaseHealth,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  onModuleInit(): void {
    this.registry.register('database', async () => ({ up: await this.database.isUp() }));
    this.registry.register('migrations', async () => {
      if (!this.migrationsApplied) this.migrationsApplied = !(await this.dataSource.showMigrations());
      if (this.migrationsApplied) return { up: true };
      return { up: false, details: { reason: 'migrations of this build are not applied yet' } };
    });
  }
}
