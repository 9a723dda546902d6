/** The parts of a scenario whose change makes a new version (evaluation-platform.md, rule 1). */
export interface Syllabus {
  cases: unknown[];
  modelBindings: Record<string, unknown>;
  llmConfig: Record<string, unknown>;
}

/** JSON with object keys sorted at every depth, so equal content compares equal whatever the key order. */
export function normalisedJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    item && typeof item === 'object' && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : item,
  );
}

/**
 * The version a scenario has after an edit (rule 1): unchanged unless `cases`, `model_bindings` or `llm_config`
 * differ as normalised JSON; metadata edits and a client-sent version never change it.
 * @param current the stored syllabus and version
 * @param next the syllabus after the edit (fields not sent keep their stored value)
 */
export function nextScenarioVersion(current: Syllabus & { version: number }, next: Syllabus): number {
  const changed =
    normalisedJson(current.cases) !== normalisedJson(next.cases) ||
    normalisedJson(current.modelBindings) !== normalisedJson(next.modelBindings) ||
    normalisedJson(current.llmConfig) !== normalisedJson(next.llmConfig);
  return changed ? current.version + 1 : current.version;
}
