import { ArgumentMetadata, BadRequestException, ValidationError, ValidationPipe } from '@nestjs/common';
import { undeclaredNullFields } from './null-fields';
import { cacheValidationMetadata } from './validation-metadata-cache';

/** Flattens nested class-validator errors into `{ field: 'a.b[0].c', messages }` entries. */
export function flattenValidationErrors(errors: ValidationError[], parent = ''): { field: string; messages: string[] }[] {
  return errors.flatMap((error) => {
    const field = parent ? (/^\d+$/.test(error.property) ? `${parent}[${error.property}]` : `${parent}.${error.property}`) : error.property;
    const own = error.constraints ? [{ field, messages: Object.values(error.constraints) }] : [];
    return [...own, ...flattenValidationErrors(error.children ?? [], field)];
  });
}

/** ValidationPipe that also refuses `null` in fields whose `@ApiProperty` does not declare `nullable: true`. */
class AtriumValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const result = await super.transform(value, metadata);
    const nulls = metadata.type === 'body' ? undeclaredNullFields(result) : [];
    if (nulls.length > 0) {
      const errors = nulls.map((field) => ({ field, messages: [`${field} must not be null (omit it to leave it unchanged)`] }));
      throw new BadRequestException({ message: `Invalid request: ${errors.map((entry) => `${entry.field} (${entry.messages[0]})`).join('; ')}`, errors });
    }
    return result;
  }
}

/**
 * The global ValidationPipe (DESIGN.md, Request pipeline): unknown fields are refused, values transformed to the
 * DTO's types, and `null` only where the field is declared `nullable: true` (issue 22); a failure is a 400 problem
 * with one `errors[]` entry per field. Class-validator's metadata of each DTO is looked up once, not per request
 * (validation-metadata-cache.ts).
 */
export function createValidationPipe(): ValidationPipe {
  cacheValidationMetadata();
  return new AtriumValidationPipe({
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
