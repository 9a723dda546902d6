import { buildToolRequest, compileInputSchema, ToolSchemaTooLargeError, toolOperationsProblems } from './tool-operations.rules';

const LIMITS = { maxOperations: 3, maxSchemaBytes: 2000 };
const ORDER_SCHEMA = { type: 'object', properties: { orderId: { type: 'string', pattern: '^[A-Z0-9-]{1,20}$' }, verbose: { type: 'boolean' } }, required: ['orderId'], additionalProperties: false };
const getOrder = { name: 'get_order', description: 'Look an order up', method: 'GET', path: '/orders/{orderId}', inputSchema: ORDER_SCHEMA };

describe('toolOperationsProblems', () => {
  it('accepts well-formed operations', () => {
    expect(toolOperationsProblems([getOrder, { name: 'create-ticket', method: 'POST', path: '/tickets', inputSchema: { type: 'object', properties: { text: { type: 'string', maxLength: 500, format: 'email' } } } }], LIMITS)).toEqual([]);
  });

  it('checks the shape of each operation with Ajv and names the field', () => {
    const problems = toolOperationsProblems([{ name: '1bad', method: 'TRACE', path: 'orders', inputSchema: ORDER_SCHEMA, extra: 1 }, { method: 'GET', path: '/x', inputSchema: {} }], LIMITS);
    expect(problems).toEqual(
      expect.arrayContaining([
        { field: 'operations[0]', message: 'must NOT have additional properties (extra)' },
        { field: 'operations[0].name', message: 'must match pattern "^[A-Za-z][A-Za-z0-9_-]{0,63}$"' },
        { field: 'operations[0].method', message: 'must be equal to one of the allowed values: GET, POST, PUT, PATCH, DELETE' },
        { field: 'operations[0].path', message: 'must match pattern "^/[^?#\\s]*$"' },
        { field: 'operations[1].name', message: "must have required property 'name'" },
      ]),
    );
  });

  it('refuses too many operations, repeated names and dot segments', () => {
    expect(toolOperationsProblems([getOrder, getOrder, getOrder, getOrder], LIMITS)).toEqual([{ field: 'operations', message: 'has 4 operations; at most 3 are allowed' }]);
    expect(toolOperationsProblems([getOrder, { ...getOrder }], LIMITS)).toEqual([{ field: 'operations[1].name', message: '"get_order" is already the name of operations[0]' }]);
    expect(toolOperationsProblems([{ ...getOrder, path: '/a/../admin/{orderId}' }], LIMITS)).toEqual([{ field: 'operations[0].path', message: 'must not contain "." or ".." segments' }]);
  });

  it('needs every path placeholder as a required property', () => {
    expect(toolOperationsProblems([{ ...getOrder, path: '/orders/{orderId}/lines/{lineId}' }], LIMITS)).toEqual([
      { field: 'operations[0].path', message: 'placeholder {lineId} must be a required property of the input schema' },
    ]);
    expect(toolOperationsProblems([{ ...getOrder, inputSchema: { ...ORDER_SCHEMA, required: [] } }], LIMITS)).toEqual([
      { field: 'operations[0].path', message: 'placeholder {orderId} must be a required property of the input schema' },
    ]);
  });

  it('needs an object schema that Ajv compiles strictly, with known formats and local refs only', () => {
    expect(toolOperationsProblems([{ ...getOrder, path: '/x', inputSchema: { type: 'string' } }], LIMITS)).toEqual([{ field: 'operations[0].inputSchema.type', message: 'must be "object" (the arguments are an object)' }]);
    const typo = toolOperationsProblems([{ ...getOrder, path: '/x', inputSchema: { type: 'object', requried: ['a'] } }], LIMITS);
    expect(typo).toEqual([{ field: 'operations[0].inputSchema', message: expect.stringMatching(/^is not a valid JSON Schema: strict mode: unknown keyword: "requried"/) }]);
    const format = toolOperationsProblems([{ ...getOrder, path: '/x', inputSchema: { type: 'object', properties: { a: { type: 'string', format: 'credit-card' } } } }], LIMITS);
    expect(format[0].message).toMatch(/unknown format "credit-card"/);
    const remote = toolOperationsProblems([{ ...getOrder, path: '/x', inputSchema: { type: 'object', properties: { a: { $ref: 'https://example.com/schema.json' } } } }], LIMITS);
    expect(remote[0].message).toMatch(/can't resolve reference/);
    const badType = toolOperationsProblems([{ ...getOrder, path: '/x', inputSchema: { type: 'object', properties: { a: { type: 'strin' } } } }], LIMITS);
    expect(badType[0].field).toBe('operations[0].inputSchema');
  });

  it('refuses patterns inside the input schema that RE2 cannot run, naming the construct', () => {
    const unsafe = toolOperationsProblems([{ ...getOrder, path: '/x', inputSchema: { type: 'object', properties: { a: { type: 'string', pattern: '^(a)\\1$' } }, patternProperties: { '(': {} } } }], LIMITS);
    expect(unsafe).toEqual([
      { field: 'operations[0].inputSchema.properties.a.pattern', message: expect.stringMatching(/backreference "\\1"/) },
      { field: 'operations[0].inputSchema.patternProperties', message: expect.stringMatching(/is not a valid regular expression for the RE2 engine/) },
    ]);
  });

  it('accepts catastrophic-backtracking shapes (RE2 runs them in linear time) and checks arguments against them', () => {
    const inputSchema = { type: 'object', properties: { a: { type: 'string', pattern: '^(a+)+$' }, b: { type: 'string', pattern: '(?:a|b|ab)*c' } } };
    expect(toolOperationsProblems([{ ...getOrder, path: '/x', inputSchema }], LIMITS)).toEqual([]);
    const validate = compileInputSchema(inputSchema);
    const started = Date.now();
    expect(validate({ a: `${'a'.repeat(50_000)}!` })).toBe(false);
    expect(validate({ a: 'aaaa', b: `${'ab'.repeat(25_000)}c` })).toBe(true);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('answers 413 (ToolSchemaTooLargeError) for an input schema over the byte limit', () => {
    const big = { type: 'object', description: 'x'.repeat(2000) };
    expect(() => toolOperationsProblems([{ ...getOrder, path: '/x', inputSchema: big }], LIMITS)).toThrow(ToolSchemaTooLargeError);
  });
});

describe('compileInputSchema', () => {
  it('validates arguments, fills defaults and checks formats', () => {
    const validate = compileInputSchema({ type: 'object', properties: { email: { type: 'string', format: 'email' }, limit: { type: 'integer', default: 10 } }, required: ['email'] });
    const args: Record<string, unknown> = { email: 'a@example.com' };
    expect(validate(args)).toBe(true);
    expect(args.limit).toBe(10);
    expect(validate({ email: 'not-an-email' })).toBe(false);
    expect(validate({})).toBe(false);
  });
});

describe('buildToolRequest', () => {
  it('fills path placeholders (encoded) and sends the rest as query for GET', () => {
    expect(buildToolRequest('https://api.example.com/v2/', { method: 'GET', path: '/orders/{orderId}' }, { orderId: 'A 1/2', verbose: true, tags: ['x', 'y'], filter: { a: 1 }, skip: null })).toEqual({
      url: 'https://api.example.com/v2/orders/A%201%2F2?verbose=true&tags=x&tags=y&filter=%7B%22a%22%3A1%7D',
      method: 'GET',
    });
  });

  it('sends the rest as a JSON body for POST, PUT and PATCH', () => {
    expect(buildToolRequest('http://api.example.com', { method: 'POST', path: '/orders/{id}/notes' }, { id: 7, text: 'hi', nested: { a: [1] } })).toEqual({
      url: 'http://api.example.com/orders/7/notes',
      method: 'POST',
      body: '{"text":"hi","nested":{"a":[1]}}',
    });
  });

  it('refuses "." and ".." as path arguments', () => {
    expect(() => buildToolRequest('http://api.example.com', { method: 'GET', path: '/files/{name}' }, { name: '..' })).toThrow('argument "name" may not be ".." (it is part of the path)');
  });
});
