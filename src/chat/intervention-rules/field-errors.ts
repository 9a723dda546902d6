import { BadRequestException } from '@nestjs/common';

/** One problem with one field of a request body (`field` like `patterns[2]` or `operations[0].inputSchema`). */
export interface FieldProblem {
  field: string;
  message: string;
}

/**
 * A 400 in the shape of the global ValidationPipe's (src/common/http/validation.ts): `detail` lists every problem,
 * `errors[]` has one entry per field. Used for checks class-validator cannot express (regex safety, JSON Schemas,
 * limits from configuration) by the rule and tool-provider services.
 */
export function fieldErrors(problems: readonly FieldProblem[]): BadRequestException {
  const byField = new Map<string, string[]>();
  for (const problem of problems) byField.set(problem.field, [...(byField.get(problem.field) ?? []), problem.message]);
  const errors = [...byField].map(([field, messages]) => ({ field, messages }));
  return new BadRequestException({
    message: `Invalid request: ${errors.map((entry) => `${entry.field} (${entry.messages.join(', ')})`).join('; ')}`,
    errors,
  });
}
