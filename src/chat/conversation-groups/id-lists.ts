import { BadRequestException } from '@nestjs/common';

/** One invalid field of a request, as rendered in the problem's `errors[]`. */
export interface FieldProblem {
  field: string;
  message: string;
}

/**
 * The ids of `requested` that are not in `found`, in the order asked (duplicates once).
 * @param requested ids named by a request
 * @param found ids that exist (in the right tenant / group)
 */
export function missingIds(requested: readonly string[], found: Iterable<string>): string[] {
  const present = new Set(found);
  return [...new Set(requested)].filter((id) => !present.has(id));
}

/**
 * A short list for a message: up to `max` items quoted and joined, `…` when there are more.
 * @param items the names or ids to show
 * @param total how many there are in all (default items.length)
 * @param max most items shown (default 10)
 */
export function quotedList(items: readonly string[], total = items.length, max = 10): string {
  const shown = items.slice(0, max).map((item) => `"${item}"`);
  return shown.join(', ') + (total > shown.length ? ', …' : '');
}

/** Sorted copy without duplicates: how id lists are stored, so equal sets compare equal. */
export function sortedUnique(ids: readonly string[]): string[] {
  return [...new Set(ids)].sort();
}

/**
 * A 400 problem listing every field problem in `errors[]` (the same shape as the validation pipe's).
 * @param summary first words of the detail, e.g. "Invalid event definition"
 */
export function fieldProblems(summary: string, problems: readonly FieldProblem[]): BadRequestException {
  return new BadRequestException({
    message: `${summary}: ${problems.map((problem) => problem.message).join(' ')}`,
    errors: problems.map((problem) => ({ field: problem.field, messages: [problem.message] })),
  });
}

/** "1 conversation", "3 conversations". */
export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
