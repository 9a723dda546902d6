import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

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

/** Computes the dashboard with SQL aggregates only (no rows are loaded into memory). */
@Injectable()
export class DashboardService {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** @param days window of the trend and slowest-target figures, in days */
  async stats(days: number, slowestLimit = 5): Promise<DashboardStats> {
    const since = new Date(Date.now() - days * 86_400_000);
    const [[counts], byStatus, trend, slowest] = await Promise.all([
      this.dataSource.query(`SELECT (SELECT count(*) FROM eval_scenario)::int AS scenarios, (SELECT count(*) FROM eval_target)::int AS targets`),
      this.dataSource.query(`SELECT status, count(*)::int AS count FROM eval_run GROUP BY status`),
      this.dataSource.query(
        `SELECT to_char(date_trunc('day', finished_at AT TIME ZONE 'UTC'), 'YYYY-MM-DD') AS day, count(*)::int AS runs,
                round(avg((summary->>'pass_rate')::numeric), 4)::float AS mean_pass_rate
           FROM eval_run WHERE status = 'completed' AND finished_at >= $1 GROUP BY 1 ORDER BY 1`,
        [since],
      ),
      this.dataSource.query(
        `SELECT target_id, max(target_name) AS target_name, count(*)::int AS runs, round(avg((summary->>'latency_p95_ms')::numeric))::int AS mean_latency_p95_ms
           FROM eval_run WHERE status = 'completed' AND finished_at >= $1 AND target_id IS NOT NULL AND summary->>'latency_p95_ms' IS NOT NULL
          GROUP BY target_id ORDER BY mean_latency_p95_ms DESC LIMIT $2`,
        [since, slowestLimit],
      ),
    ]);
    return {
      scenarios: counts.scenarios,
      targets: counts.targets,
      runs_by_status: Object.fromEntries((byStatus as { status: string; count: number }[]).map((row) => [row.status, row.count])),
      pass_rate_trend: trend,
      slowest_targets: slowest,
      window_days: days,
    };
  }
}
