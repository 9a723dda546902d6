import type { AnalysisReport, ReportEvidence } from './analysis-report.schema';

/** What exists in the campaign: the ids a report may refer to. */
export interface CampaignReferences {
  /** Ids of the campaign's runs (UUIDs, any case). */
  runIds: Iterable<string>;
  /** Ids of the campaign's plan scenarios (UUIDs, any case). */
  scenarioIds: Iterable<string>;
  /** Case ids of the campaign's case results; omitted = case ids are not checked. */
  caseIds?: Iterable<string>;
}

/** One reference removed from a report, with its JSON path in the report as the model wrote it. */
export interface RemovedReference {
  /** JSON pointer, e.g. `/problems/0/evidence/1/run_id`. */
  path: string;
  /** `run`, `scenario`, `case`: a reference to something not in the campaign; `problem`: a recommendation naming a problem not in the report; `evidence`: an evidence item dropped because every reference it had was foreign. */
  kind: 'run' | 'scenario' | 'case' | 'problem' | 'evidence';
  value: string;
}

const lower = (values: Iterable<string>) => new Set([...values].map((value) => value.toLowerCase()));

/**
 * Removes references to runs, scenarios and cases that are not in the campaign (evaluation-platform.md, Errors:
 * "Analysis references to runs or scenarios that do not exist in the campaign are removed before storage").
 * Pure: returns a new report, the input is not changed.
 *
 * - Evidence `run_id` / `scenario_id` / `case_id` not in the campaign are removed; run and scenario ids that are
 *   kept are written in lower case. An evidence item that had references and lost all of them is dropped (it was
 *   about something outside the campaign); one that only has a note is kept.
 * - A problem's `scenario_ids` keep only plan scenarios (deduplicated).
 * - A recommendation's `problem_ids` keep only problems of the report.
 * @returns the cleaned report and every removal, in report order
 */
export function removeForeignReferences(report: AnalysisReport, references: CampaignReferences): { report: AnalysisReport; removed: RemovedReference[] } {
  const runs = lower(references.runIds);
  const scenarios = lower(references.scenarioIds);
  const cases = references.caseIds ? new Set(references.caseIds) : undefined;
  const removed: RemovedReference[] = [];

  const problems = report.problems.map((problem, problemIndex) => {
    const base = `/problems/${problemIndex}`;
    const evidence: ReportEvidence[] = [];
    problem.evidence.forEach((item, evidenceIndex) => {
      const path = `${base}/evidence/${evidenceIndex}`;
      const kept: ReportEvidence = { note: item.note };
      let hadReference = false;
      let keptReference = false;
      if (item.run_id !== undefined) {
        hadReference = true;
        if (runs.has(item.run_id.toLowerCase())) {
          kept.run_id = item.run_id.toLowerCase();
          keptReference = true;
        } else removed.push({ path: `${path}/run_id`, kind: 'run', value: item.run_id });
      }
      if (item.scenario_id !== undefined) {
        hadReference = true;
        if (scenarios.has(item.scenario_id.toLowerCase())) {
          kept.scenario_id = item.scenario_id.toLowerCase();
          keptReference = true;
        } else removed.push({ path: `${path}/scenario_id`, kind: 'scenario', value: item.scenario_id });
      }
      if (item.case_id !== undefined) {
        hadReference = true;
        if (!cases || cases.has(item.case_id)) {
          kept.case_id = item.case_id;
          keptReference = true;
        } else removed.push({ path: `${path}/case_id`, kind: 'case', value: item.case_id });
      }
      if (hadReference && !keptReference) {
        removed.push({ path, kind: 'evidence', value: item.note });
        return;
      }
      evidence.push({ ...(kept.run_id ? { run_id: kept.run_id } : {}), ...(kept.scenario_id ? { scenario_id: kept.scenario_id } : {}), ...(kept.case_id ? { case_id: kept.case_id } : {}), note: kept.note });
    });
    const cleaned = { ...problem, evidence };
    if (problem.scenario_ids) {
      const keptIds: string[] = [];
      problem.scenario_ids.forEach((scenarioId, index) => {
        const normalised = scenarioId.toLowerCase();
        if (!scenarios.has(normalised)) removed.push({ path: `${base}/scenario_ids/${index}`, kind: 'scenario', value: scenarioId });
        else if (!keptIds.includes(normalised)) keptIds.push(normalised);
      });
      cleaned.scenario_ids = keptIds;
    }
    return cleaned;
  });

  const problemIds = new Set(problems.map((problem) => problem.id));
  const recommendations = report.recommendations.map((recommendation, index) => ({
    ...recommendation,
    problem_ids: recommendation.problem_ids.filter((problemId, position) => {
      if (problemIds.has(problemId)) return true;
      removed.push({ path: `/recommendations/${index}/problem_ids/${position}`, kind: 'problem', value: problemId });
      return false;
    }),
  }));

  return { report: { summary: report.summary, problems, recommendations }, removed };
}
