import { isJsonBodyRequest, jsonNestingDepth, parseContentType, parseJsonBody } from './body-json';

describe('jsonNestingDepth (body-json.ts)', () => {
  it('counts the deepest nesting of arrays and objects', () => {
    expect(jsonNestingDepth('1', 64)).toBe(0);
    expect(jsonNestingDepth('{}', 64)).toBe(1);
    expect(jsonNestingDepth('{"a":[{"b":[]}],"c":{}}', 64)).toBe(4);
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    expect(jsonNestingDepth('{"a":"[[[{{{","b":"\\"[[[\\\\"}', 64)).toBe(1);
  });

  it('stops counting once past the limit, even on a 10,000-deep text', () => {
    expect(jsonNestingDepth(`${'['.repeat(10_000)}${']'.repeat(10_000)}`, 64)).toBe(65);
    expect(jsonNestingDepth(`${'['.repeat(64)}${']'.repeat(64)}`, 64)).toBe(64);
  });
});

describe('parseJsonBody (body-json.ts)', () => {
  it('parses objects and arrays; an empty body is {}', () => {
    expect(parseJsonBody('{"a":1}', 64)).toEqual({ value: { a: 1 } });
    expect(parseJsonBody(' [1,2] ', 64)).toEqual({ value: [1, 2] });
    expect(parseJsonBody('', 64)).toEqual({ value: {} });
  });

  it('refuses scalars, invalid JSON and bodies nested deeper than the limit', () => {
    expect(parseJsonBody('"text"', 64)).toEqual({ problem: 'The JSON body must be an object or an array.' });
    expect(parseJsonBody('{"a":', 64)).toEqual({ problem: expect.stringMatching(/^The body is not valid JSON: /) });
    expect(parseJsonBody(`${'{"a":'.repeat(65)}1${'}'.repeat(65)}`, 64)).toEqual({ problem: 'The JSON body is nested more than 64 levels deep (HTTP_JSON_MAX_DEPTH).' });
    expect(parseJsonBody(`${'['.repeat(10_000)}${']'.repeat(10_000)}`, 64)).toEqual({ problem: expect.stringMatching(/nested more than 64 levels/) });
  });
});

describe('content type helpers (body-json.ts)', () => {
  it('reads the media type and charset', () => {
    expect(parseContentType('Application/JSON; charset="UTF-8"')).toEqual({ type: 'application/json', charset: 'utf-8' });
    expect(parseContentType(undefined)).toEqual({ type: '' });
  });

  it('recognises a JSON request with a body', () => {
    expect(isJsonBodyRequest({ 'content-type': 'application/json', 'content-length': '2' })).toBe(true);
    expect(isJsonBodyRequest({ 'content-type': 'application/json; charset=utf-8', 'transfer-encoding': 'chunked' })).toBe(true);
    expect(isJsonBodyRequest({ 'content-type': 'application/json' })).toBe(false);
    expect(isJsonBodyRequest({ 'content-type': 'text/xml', 'content-length': '10' })).toBe(false);
    expect(isJsonBodyRequest({ 'content-type': 'multipart/form-data; boundary=x', 'content-length': '10' })).toBe(false);
  });
});
