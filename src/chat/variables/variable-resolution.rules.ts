import type { VariableType } from './variable-value.rules';

/**
 * Which variables a contact sees (issue 6, Variables; used by the reply pipeline through
 * VariablesService.resolveForContact). Pure functions, no I/O.
 *
 * A scope's `source` says what its values belong to:
 * - `tenant`: one value per definition, for the whole tenant (no subject);
 * - `digital_staff`: one value per digital staff (subject = digital staff id);
 * - `contact`: one value per external contact (subject = chat_external_contact.id, the spec's contactId).
 *
 * A contact sees the tenant's variables, those of the digital staff that answers it, and its own. When several
 * share a name, the most specific wins: contact over digital staff over tenant. Within one source, a value set for
 * the subject beats a definition's default, and then the scope created first wins (ties broken by scope id, so the
 * result never depends on row order). A definition without a value for the subject and without a default is not
 * visible at all.
 */
export const VARIABLE_SOURCES = ['tenant', 'digital_staff', 'contact'] as const;
export type VariableSource = (typeof VARIABLE_SOURCES)[number];

/** Specificity of each source: higher wins. */
export const SOURCE_PRECEDENCE: Readonly<Record<VariableSource, number>> = { tenant: 0, digital_staff: 1, contact: 2 };

/** What a value's subject is for each source, as said in messages and the API description. */
export const SUBJECT_KIND: Readonly<Record<VariableSource, string>> = {
  tenant: 'none (the value is global to the tenant)',
  digital_staff: 'a digital staff id',
  contact: 'an external contact id',
};

/** One candidate for a name: a value set for the subject, or a definition's default. */
export interface VariableCandidate {
  name: string;
  type: VariableType;
  value: unknown;
  source: VariableSource;
  scopeId: string;
  /** When the scope was created (earlier wins within a source), ms since the epoch. */
  scopeCreatedAt: number;
  definitionId: string;
  /** The definition's default stands in (no value set for the subject). */
  fromDefault: boolean;
}

/** The variable a name resolves to. */
export type ResolvedVariable = Omit<VariableCandidate, 'scopeCreatedAt'>;

/**
 * Picks the winning candidate for each name (see the module doc) and returns them sorted by name.
 * @param candidates values and defaults of every visible scope, in any order
 */
export function mergeVariableLayers(candidates: readonly VariableCandidate[]): ResolvedVariable[] {
  const winners = new Map<string, VariableCandidate>();
  for (const candidate of candidates) {
    const current = winners.get(candidate.name);
    if (!current || beats(candidate, current)) winners.set(candidate.name, candidate);
  }
  return [...winners.values()]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map(({ scopeCreatedAt: _scopeCreatedAt, ...resolved }) => resolved);
}

/** name → value of resolved variables, the input of renderTemplate. */
export function variablesByName(resolved: readonly ResolvedVariable[]): Map<string, unknown> {
  return new Map(resolved.map((variable) => [variable.name, variable.value]));
}

function beats(challenger: VariableCandidate, holder: VariableCandidate): boolean {
  const precedence = SOURCE_PRECEDENCE[challenger.source] - SOURCE_PRECEDENCE[holder.source];
  if (precedence !== 0) return precedence > 0;
  if (challenger.fromDefault !== holder.fromDefault) return !challenger.fromDefault;
  if (challenger.scopeCreatedAt !== holder.scopeCreatedAt) return challenger.scopeCreatedAt < holder.scopeCreatedAt;
  return challenger.scopeId < holder.scopeId;
}
