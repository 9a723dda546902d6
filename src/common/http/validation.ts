import { BadRequestException, ValidationError, ValidationPipe } from '@nestjs/common';

/** Flattens nested class-validator errors into `{ field: 'a.b[0].c', messages }` entries. */
export function flattenValidationErrors(errors: ValidationError[], parent = ''): { field: string; messages: string[] }[] {
  return errors.flatMap((error) => {
    const field = parent ? (/^\d+$/.test(error.property) ? `${parent}[${error.property}]` : `${parent}.${error.property}`) : error.property;
    const own = error.constraints ? [{ field, messages: Object.values(error.constraints) }] : [];
    return [...own, ...flattenValidationErrors(error.children ?? [], field)];
  });
}

/**
 * The global ValidationPipe (DESIGN.md, Request pipeline): unknown fields are refused, values transformed to the
 * DTO's types; a failure is a 400 problem with one `errors[]` entry per field.
 */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    exceptionFactory: (errors) => {
      const fields = flattenValidationErrors(errors);
      return new BadRequestException({
        message: `Invalid request: ${fields.map((entry) => `${entry.field} (${entry.messages.join(', ')})`).join('; ')}`,
        errors: fields,
      });
    },
  });
}
