import { compileJsonSchema, describeSchemaErrors } from './json-schema';

describe('compileJsonSchema', () => {
  it('compiles and validates', () => {
    const compiled = compileJsonSchema({ type: 'object', required: ['id'] });
    if (!('validate' in compiled)) throw new Error('expected a validator');
    expect(compiled.validate({ id: 1 })).toBe(true);
    expect(compiled.validate({})).toBe(false);
  });

  it('caches by JSON text', () => {
    expect(compileJsonSchema({ type: 'string' })).toBe(compileJsonSchema({ type: 'string' }));
  });

  it('allows two schemas with the same $id', () => {
    expect('validate' in compileJsonSchema({ $id: 'https://example.com/order.json', type: 'string' })).toBe(true);
    expect('validate' in compileJsonSchema({ $id: 'https://example.com/order.json', type: 'number' })).toBe(true);
  });

  it.each<[unknown, RegExp]>([
    [null, /schema must be a JSON object/],
    [[{ type: 'string' }], /schema must be a JSON object/],
    [{ type: 'nope' }, /schema is invalid/],
    [{ $ref: '#/definitions/missing' }, /can't resolve reference/],
  ])('reports %j as an error', (schema, message) => {
    const compiled = compileJsonSchema(schema);
    expect('error' in compiled && compiled.error).toMatch(message);
  });
});

describe('describeSchemaErrors', () => {
  it('is empty for no errors', () => expect(describeSchemaErrors(null)).toBe(''));

  it('lists at most three errors', () => {
    const compiled = compileJsonSchema({ type: 'object', required: ['a', 'b', 'c', 'd'] });
    if (!('validate' in compiled)) throw new Error('expected a validator');
    compiled.validate({});
    expect(describeSchemaErrors(compiled.validate.errors)).toBe(
      "/ must have required property 'a'; / must have required property 'b'; / must have required property 'c' (+1 more)",
    );
  });
});

describe('compileJsonSchema: formats, draft 2020-12, RE2 patterns (issue 24 item 1)', () => {
  const validator = (schema: object, flavour?: 'atrium' | 'promptfoo') => {
    const compiled = compileJsonSchema(schema, flavour);
    if (!('validate' in compiled)) throw new Error(compiled.error);
    return compiled.validate;
  };

  it.each<[string, string, boolean]>([
    ['email', 'not-an-email', false],
    ['email', 'a@b.co', true],
    ['date-time', 'yesterday', false],
    ['date-time', '2024-01-05T10:00:00Z', true],
    ['uri', 'not a uri', false],
    ['uuid', '4f5b2c1e-8a3d-4c2b-9f1e-2d3c4b5a6978', true],
  ])('format %s: %j → %s', (format, value, valid) => {
    expect(validator({ type: 'string', format })(value)).toBe(valid);
  });

  it('reads draft 2020-12 with prefixItems, and its patterns run on RE2', () => {
    const validate = validator({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'array',
      prefixItems: [{ type: 'string', pattern: '^[A-Z]{2}\\d{2}$' }, { type: 'number' }],
    });
    expect(validate(['AB12', 3])).toBe(true);
    expect(validate(['ab12', 3])).toBe(false);
    const refused = compileJsonSchema({ $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'string', pattern: '(a)\\1' });
    expect('error' in refused && refused.error).toMatch(/backreference/i);
  });

  it('the promptfoo flavour is strict draft-07, as promptfoo 0.121 is', () => {
    expect('error' in compileJsonSchema({ type: 'object', 'x-note': 'n' }, 'promptfoo')).toBe(true);
    expect('error' in compileJsonSchema({ $schema: 'https://json-schema.org/draft/2020-12/schema' }, 'promptfoo')).toBe(true);
    expect(validator({ type: 'string', format: 'email' }, 'promptfoo')('x')).toBe(false);
  });
});
