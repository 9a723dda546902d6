import type { RunReport } from './report.types';

/** Escapes text for a Markdown table cell or line (pipes, newlines, backticks kept readable). */
function cell(text: string | number | null | undefined): string {
  if (text === null || text === undefined || text === '') return '—';
  return String(text).replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r?\n/g, ' ').slice(0, 500);
}

const percent = (value: number) => `${(value * 100).toFixed(1)}%`;

/**
 * Renders a run report as Markdown (evaluation-platform.md, Endpoints: Markdown report): header with scenario,
 * `v<n>`, target and times; the summary; every failed rule and errored case with its reason; then all cases.
 */
export function renderReportMarkdown(report: RunReport): string {
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
  const failures = report.cases.filter((item) => item.status !== 'passed');
  lines.push('', '## Failures', '');
  if (failures.length === 0) lines.push('None: every case passed.');
  for (const item of failures) {
    const label = `${item.case_id}${item.repeat_index > 0 ? ` (repeat ${item.repeat_index + 1})` : ''}`;
    if (item.status === 'errored') {
      lines.push(`- **${cell(label)}** errored: ${cell(item.error)}`);
      continue;
    }
    for (const rule of item.rules.filter((candidate) => !candidate.pass)) {
      lines.push(`- **${cell(label)}** rule ${rule.index + 1} \`${rule.type}\` failed: ${cell(rule.reason)}`);
    }
  }
  lines.push('', '## Cases', '', '| Case | Status | Score | Latency (ms) | Output |', '|---|---|---|---|---|');
  for (const item of report.cases) {
    lines.push(`| ${cell(item.case_id)}${item.repeat_index > 0 ? ` #${item.repeat_index + 1}` : ''} | ${item.status} | ${cell(item.score)} | ${cell(item.latency_ms)} | ${cell(item.output)} |`);
  }
  return `${lines.join('\n')}\n`;
}
