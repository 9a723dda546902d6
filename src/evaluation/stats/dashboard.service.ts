import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { DASHBOARD_COUNTERS_SQL, DASHBOARD_PASS_RATE_TREND_SQL, DASHBOARD_SLOWEST_TARGETS_SQL } from './dashboard.queries';

/** Dashboard statistics (evaluation-platform.md, Endpoints: GET /api/stats/dashboard). */
export interface DashboardStats {
  scenarios: number;
  targets: number;
  runs_by_status: Record<string, number>;
  /** Per UTC day with finished runs: completed runs and their mean pass rate (0..1), oldest first. */
  pass_rate_trend: { day: string; runs: number; mean_pass_rate: number }[];
  /** Targets by mean p95 latency of their completed runs in the window, slowest first. */
  slowest_targets: { target_id: string; target_name: string; runs: number; mean_latency_p95_ms: number }[];
  window_days: number;
}

/**
 * Computes the dashboard from rollups kept up to date as runs change and from index ranges (issue 23 item 4; the SQL
 * and its cost bound are in dashboard.queries.ts): no request scans the runs, and no rows are loaded into memory
 * beyond the figures themselves.
 */
@Injectable()
export class DashboardService {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * @param days window of the trend and slowest-target figures, in days (ending now)
   * @param slowestLimit how many targets `slowest_targets` lists at most
   */
  async stats(days: number, slowestLimit = 5): Promise<DashboardStats> {
    const since = new Date(Date.now() - days * 86_400_000);
    const [counters, trend, slowest] = await Promise.all([
      this.dataSource.query(DASHBOARD_COUNTERS_SQL) as Promise<{ name: string; value: number }[]>,
      this.dataSource.query(DASHBOARD_PASS_RATE_TREND_SQL, [since]),
      this.dataSource.query(DASHBOARD_SLOWEST_TARGETS_SQL, [since, slowestLimit]),
    ]);
    const count = (name: string) => counters.find((row) => row.name === name)?.value ?? 0;
    const runsByStatus = counters.filter((row) => row.name.startsWith('run:')).map((row) => [row.name.slice('run:'.length), row.value]);
    return {
      scenarios: count('scenarios'),
      targets: count('targets'),
      runs_by_status: Object.fromEntries(runsByStatus),
      pass_rate_trend: trend,
      slowest_targets: slowest,
      window_days: days,
    };
  }
}
