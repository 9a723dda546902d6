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
