import { BadRequestException, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, In } from 'typeorm';
import { CaseResultEntity } from '../runs/case-result.entity';
import { RuleResultEntity } from '../runs/rule-result.entity';
import { RunEntity } from '../runs/run.entity';
import { RunsService } from '../runs/runs.service';
import { toRunDto } from '../runs/runs.dto';
import { CaseDifference, ComparisonDelta, compareRuns } from './compare-runs';
import type { ReportCase, ReportRule, RunReport } from './report.types';

/** Rule rows are read in slices of this many case results (keeps the IN list and memory bounded). */
const RULE_BATCH = 1_000;

/** Reports of runs: single (JSON and Markdown) and comparison (evaluation-platform.md, Endpoints: /api/reports). */
@Injectable()
export class ReportsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly runs: RunsService,
  ) {}

  /** The report of a run: header, summary, cases with their rules, in scenario order. @throws NotFoundException (404) */
  async report(runId: string): Promise<RunReport> {
    const run = await this.runs.find(runId);
    return { ...this.header(run), cases: await this.cases(run) };
  }

  /**
   * Compares two runs of one scenario.
   * @throws BadRequestException (400) the runs belong to different scenarios; NotFoundException (404) unknown run
   */
  async compare(runIdA: string, runIdB: string): Promise<{ run_a: ReturnType<typeof toRunDto>; run_b: ReturnType<typeof toRunDto>; delta: ComparisonDelta; cases: CaseDifference[] }> {
    const [runA, runB] = await Promise.all([this.runs.find(runIdA), this.runs.find(runIdB)]);
    if (!runA.scenarioId || runA.scenarioId !== runB.scenarioId) {
      throw new BadRequestException('Only runs of the same scenario can be compared.');
    }
    const [casesA, casesB] = await Promise.all([this.cases(runA, false), this.cases(runB, false)]);
    const { delta, cases } = compareRuns({ summary: runA.summary, cases: casesA }, { summary: runB.summary, cases: casesB });
    return { run_a: toRunDto(runA), run_b: toRunDto(runB), delta, cases };
  }

  private header(run: RunEntity): Omit<RunReport, 'cases'> {
    return {
      run_id: run.id,
      status: run.status,
      header: {
        scenario_id: run.scenarioId,
        scenario_name: run.scenarioName,
        scenario_version: run.scenarioVersion,
        version: `v${run.scenarioVersion}`,
        target_id: run.targetId,
        target_name: run.targetName,
        triggered_by: run.triggeredBy,
        campaign_id: run.campaignId,
        created_at: run.createdAt.toISOString(),
        started_at: run.startedAt?.toISOString() ?? null,
        finished_at: run.finishedAt?.toISOString() ?? null,
      },
      summary: run.summary,
    };
  }

  /** Case results of a run with their rule verdicts (from the run's own snapshot, so later edits never show). */
  private async cases(run: RunEntity, withRules = true): Promise<ReportCase[]> {
    const rows = await this.dataSource.getRepository(CaseResultEntity).find({ where: { runId: run.id }, order: { position: 'ASC', repeatIndex: 'ASC' } });
    const rulesByCase = new Map<string, ReportRule[]>();
    if (withRules) {
      for (let start = 0; start < rows.length; start += RULE_BATCH) {
        const ids = rows.slice(start, start + RULE_BATCH).map((row) => row.id);
        const rules = await this.dataSource.getRepository(RuleResultEntity).find({ where: { caseResultId: In(ids) }, order: { caseResultId: 'ASC', ruleIndex: 'ASC' } });
        for (const rule of rules) {
          const list = rulesByCase.get(rule.caseResultId) ?? [];
          list.push({ index: rule.ruleIndex, type: rule.type, pass: rule.pass, score: rule.score, weight: rule.weight, reason: rule.reason });
          rulesByCase.set(rule.caseResultId, list);
        }
      }
    }
    return rows.map((row) => {
      const testCase = run.cases[row.position];
      return {
        case_id: row.caseId,
        repeat_index: row.repeatIndex,
        status: row.status,
        input: testCase?.turns ?? testCase?.input ?? '',
        expected: testCase?.expected ?? null,
        output: row.output,
        latency_ms: row.latencyMs,
        score: row.score,
        error: row.error,
        transcript: row.transcript,
        rules: rulesByCase.get(row.id) ?? [],
      };
    });
  }
}
