import 'reflect-metadata';

/** Where @nestjs/swagger keeps a property's `@ApiProperty` options (its DECORATORS.API_MODEL_PROPERTIES). */
const API_MODEL_PROPERTIES = 'swagger/apiModelProperties';

/**
 * Fields of a validated request DTO that hold `null` although their `@ApiProperty` does not declare `nullable: true`
 * (issue 22, item 1; DESIGN.md, Request pipeline: "`null` in a body field either clears a nullable column, declared
 * `nullable: true`, or is a 400"). `@IsOptional()` lets `null` through class-validator, so this is the one place that
 * decides, from the same declaration the OpenAPI document is generated from. Nested DTO instances and arrays of
 * them are walked; free-form objects (plain `Object`s such as metadata maps) are not.
 * @param dto an instance produced by the ValidationPipe's transform
 * @returns dotted field paths (`settings.timeoutMs`, `items[2].name`), empty when every null is declared
 */
export function undeclaredNullFields(dto: unknown, parent = ''): string[] {
  if (!isDtoInstance(dto)) return [];
  const found: string[] = [];
  for (const [key, value] of Object.entries(dto)) {
    const field = parent ? `${parent}.${key}` : key;
    if (value === null) {
      const options = Reflect.getMetadata(API_MODEL_PROPERTIES, dto, key) as { nullable?: boolean } | undefined;
      if (options?.nullable !== true) found.push(field);
    } else if (Array.isArray(value)) {
      value.forEach((item, index) => found.push(...undeclaredNullFields(item, `${field}[${index}]`)));
    } else {
      found.push(...undeclaredNullFields(value, field));
    }
  }
  return found;
}

function isDtoInstance(value: unknown): value is object {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype !== null && prototype !== Object.prototype;
}
