import type { ReportCase, ReportRule, RunReport } from './report.types';

/** Escapes text for a Markdown table cell or line (pipes, newlines, backticks kept readable). */
function cell(text: string | number | null | undefined): string {
  if (text === null || text === undefined || text === '') return '—';
  return String(text).replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r?\n/g, ' ').slice(0, 500);
}

const percent = (value: number) => `${(value * 100).toFixed(1)}%`;

/**
 * The Markdown report's opening (header table, summary) down to the `## Failures` heading and its blank line; each
 * string is one line. The report's pieces are separate so it can be streamed case by case (issue 23 item 3).
 */
export function markdownHead(report: Omit<RunReport, 'cases'>): string[] {
  const { header, summary } = report;
  const lines: string[] = [
    `# Evaluation report: ${cell(header.scenario_name)} ${header.version}`,
    '',
    `| | |`,
    `|---|---|`,
    `| Run | ${report.run_id} |`,
    `| Status | ${report.status} |`,
    `| Scenario | ${cell(header.scenario_name)} (${header.version}) |`,
    `| Target | ${cell(header.target_name)} |`,
    `| Triggered by | ${header.triggered_by} |`,
    `| Started | ${cell(header.started_at)} |`,
    `| Finished | ${cell(header.finished_at)} |`,
    '',
    '## Summary',
    '',
  ];
  if (summary) {
    lines.push(
      '| Metric | Value |',
      '|---|---|',
      `| Pass rate | ${percent(summary.pass_rate)} |`,
      `| Cases | ${summary.total_cases} (passed ${summary.passed_cases}, failed ${summary.failed_cases}, errored ${summary.errored_cases}) |`,
      `| Rules | ${summary.passed_rules} / ${summary.total_rules} passed |`,
      `| Latency p50 / p95 | ${cell(summary.latency_p50_ms)} ms / ${cell(summary.latency_p95_ms)} ms |`,
      `| Duration | ${summary.duration_ms} ms |`,
    );
  } else {
    lines.push('_The run has no summary yet._');
  }
  lines.push('', '## Failures', '');
  return lines;
}

/** The line written under `## Failures` when no case failed or errored. */
export const MARKDOWN_NO_FAILURES = 'None: every case passed.';

/** The `## Failures` lines of one case: its error when errored, else one line per failed rule; none when it passed. */
export function markdownFailureLines(item: Pick<ReportCase, 'case_id' | 'repeat_index' | 'status' | 'error'> & { rules: Pick<ReportRule, 'index' | 'type' | 'pass' | 'reason'>[] }): string[] {
  if (item.status === 'passed') return [];
  const label = `${item.case_id}${item.repeat_index > 0 ? ` (repeat ${item.repeat_index + 1})` : ''}`;
  if (item.status === 'errored') return [`- **${cell(label)}** errored: ${cell(item.error)}`];
  return item.rules.filter((candidate) => !candidate.pass).map((rule) => `- **${cell(label)}** rule ${rule.index + 1} \`${rule.type}\` failed: ${cell(rule.reason)}`);
}

/** The lines between the failures and the first case row: the `## Cases` heading and the table's head. */
export const MARKDOWN_CASES_HEAD = ['', '## Cases', '', '| Case | Status | Score | Latency (ms) | Output |', '|---|---|---|---|---|'];

/** One case's row of the `## Cases` table. */
export function markdownCaseRow(item: Pick<ReportCase, 'case_id' | 'repeat_index' | 'status' | 'score' | 'latency_ms' | 'output'>): string {
  return `| ${cell(item.case_id)}${item.repeat_index > 0 ? ` #${item.repeat_index + 1}` : ''} | ${item.status} | ${cell(item.score)} | ${cell(item.latency_ms)} | ${cell(item.output)} |`;
}

/**
 * Renders a run report as Markdown (evaluation-platform.md, Endpoints: Markdown report): header with scenario,
 * `v<n>`, target and times; the summary; every failed rule and errored case with its reason; then all cases.
 * The streamed report (ReportsService.markdown) writes the same lines from the same pieces.
 */
export function renderReportMarkdown(report: RunReport): string {
  const lines = markdownHead(report);
  const failures = report.cases.flatMap((item) => markdownFailureLines(item));
  if (failures.length === 0 && !report.cases.some((item) => item.status !== 'passed')) lines.push(MARKDOWN_NO_FAILURES);
  lines.push(...failures, ...MARKDOWN_CASES_HEAD);
  for (const item of report.cases) lines.push(markdownCaseRow(item));
  return `${lines.join('\n')}\n`;
}
