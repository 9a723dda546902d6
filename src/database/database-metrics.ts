import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { MetricsRegistry } from '../common/metrics/metrics.registry';

/**
 * The main database pool's use (issue 15 item 1): `atrium_db_pool_connections{state}` — `total` connections open,
 * `idle`, and `waiting` (queries queued for a connection), read from node-postgres's pool at each scrape; and
 * `atrium_db_pool_max`, the pool's size (DATABASE_POOL_MAX).
 */
@Injectable()
export class DatabaseMetrics {
  constructor(@InjectDataSource() dataSource: DataSource, metrics: MetricsRegistry) {
    // TypeORM's postgres driver keeps its pg.Pool as `master` (no public accessor).
    const pool = () => (dataSource.driver as unknown as { master?: Pool }).master;
    metrics.gauge({
      name: 'atrium_db_pool_connections',
      help: 'Main database pool connections: total open, idle, and waiting queries.',
      labelNames: ['state'],
      collect() {
        const current = pool();
        if (!current) return;
        this.set({ state: 'total' }, current.totalCount);
        this.set({ state: 'idle' }, current.idleCount);
        this.set({ state: 'waiting' }, current.waitingCount);
      },
    });
    metrics.gauge({
      name: 'atrium_db_pool_max',
      help: 'Size of the main database pool.',
      collect() {
        const max = (pool() as unknown as { options?: { max?: number } } | undefined)?.options?.max;
        if (typeof max === 'number') this.set(max);
      },
    });
  }
}
