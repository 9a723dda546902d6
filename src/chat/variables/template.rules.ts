/**
 * `{{name}}` templating of chat texts (issue 6, Variables: "templated `{{name}}` from variable scopes"): scripts,
 * personas and messages name variables, and the reply pipeline fills them in from the variables visible to the
 * contact (VariablesService.resolveForContact). Pure functions, no I/O.
 *
 * Rules:
 * - A placeholder is `{{name}}`, spaces allowed inside the braces (`{{ name }}`); `name` follows the variable name
 *   rule (a letter or `_`, then letters, digits, `_`; letters of any script). Anything else between braces is left
 *   alone: no expressions, filters, helpers or code execution of any kind.
 * - Replacement is one pass: a value that itself contains `{{...}}` is inserted as-is, never expanded again, so a
 *   customer-controlled value cannot pull in other variables.
 * - Unknown names are kept as written by default (`unknown: 'keep'`), so a missing variable shows up in review
 *   rather than silently vanishing; `unknown: 'empty'` drops them (for text that goes to a customer verbatim).
 * - Values are rendered by {@link formatVariableValue}.
 * - Only the variables' own keys count (`{{constructor}}` never reaches Object.prototype).
 */

const PLACEHOLDER = /\{\{\s*([\p{L}_][\p{L}\p{N}_]{0,63})\s*\}\}/gu;

/** How {@link renderTemplate} treats a placeholder whose name has no variable. */
export type UnknownVariablePolicy = 'keep' | 'empty';

/** Variables for rendering: name → value (a plain object or a Map). */
export type TemplateVariables = Readonly<Record<string, unknown>> | ReadonlyMap<string, unknown>;

/**
 * Fills `{{name}}` placeholders of `text` from `variables` (see the module doc for the rules).
 * @param text template text
 * @param variables name → value
 * @param options `unknown`: keep (default) or drop placeholders without a variable
 * @returns the rendered text
 */
export function renderTemplate(text: string, variables: TemplateVariables, options: { unknown?: UnknownVariablePolicy } = {}): string {
  const unknown = options.unknown ?? 'keep';
  return text.replace(PLACEHOLDER, (placeholder: string, name: string) => {
    const found = lookup(variables, name);
    if (!found.present) return unknown === 'keep' ? placeholder : '';
    return formatVariableValue(found.value);
  });
}

/** The distinct variable names the placeholders of `text` use, in order of first use. */
export function templateNames(text: string): string[] {
  return [...new Set(Array.from(text.matchAll(PLACEHOLDER), (match) => match[1]))];
}

/**
 * The names used in `text` that `variables` lacks (what {@link renderTemplate} would keep or drop).
 */
export function missingTemplateNames(text: string, variables: TemplateVariables): string[] {
  return templateNames(text).filter((name) => !lookup(variables, name).present);
}

/**
 * Text of a value inside a rendered template: strings as they are, numbers and booleans as JSON (`12.5`, `true`),
 * objects and arrays as compact JSON, null and undefined as "".
 */
export function formatVariableValue(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value) ?? '';
}

function lookup(variables: TemplateVariables, name: string): { present: boolean; value?: unknown } {
  if (variables instanceof Map) return variables.has(name) ? { present: true, value: variables.get(name) } : { present: false };
  const record = variables as Readonly<Record<string, unknown>>;
  return Object.hasOwn(record, name) ? { present: true, value: record[name] } : { present: false };
}
