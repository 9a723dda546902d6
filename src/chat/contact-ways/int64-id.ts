import { BadRequestException, type PipeTransform } from '@nestjs/common';
import { registerDecorator } from 'class-validator';

/**
 * Contact way and group way ids are int64 (chat-management-api.md, "Id types"). Pure helpers: the ids stay decimal
 * strings inside the app (TypeORM reads bigint as string) and become JSON numbers in the DTOs.
 */

/** Largest int64. */
export const INT64_MAX = 9223372036854775807n;

/** True when `text` is a positive int64 in plain decimal (no sign, no leading zeros, no exponent). */
export function isPositiveInt64(text: string): boolean {
  return /^[1-9][0-9]{0,18}$/.test(text) && BigInt(text) <= INT64_MAX;
}

/** The JSON number of a bigint identity read as a string (identities stay far below 2^53). */
export function int64ToNumber(id: string): number {
  return Number(id);
}

/**
 * Path pipe for an int64 id: answers the id as a decimal string.
 * @throws BadRequestException (400) when the segment is not a positive int64
 */
export class ParseInt64Pipe implements PipeTransform<string, string> {
  transform(value: string): string {
    if (typeof value !== 'string' || !isPositiveInt64(value)) throw new BadRequestException(`The id "${value}" is not a positive int64 (a whole number from 1 to ${INT64_MAX}).`);
    return value;
  }
}

/** class-validator: the value is a positive int64 in decimal text (query parameters). */
export function IsPositiveInt64String(): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'isPositiveInt64String',
      target: target.constructor,
      propertyName: String(propertyName),
      options: { message: `${String(propertyName)} must be a positive int64 (a whole number from 1 to ${INT64_MAX})` },
      validator: { validate: (value: unknown) => typeof value === 'string' && isPositiveInt64(value) },
    });
}
