import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsString, IsUUID, Max, Min, ValidateNested } from 'class-validator';
import { PageBoundsQueryDto } from '../paging/page';
import { enrichOpenApiDocument, PROBLEM_SCHEMA_NAME, whitelistedClasses } from './enrich-document';
import { constraintsOf, jsonSchemaPattern, RouteFacts, toOpenApiPath } from './route-facts';

class InnerDto {
  @ApiProperty() @IsString() label: string;
}
class OuterDto {
  @ApiProperty() @IsString() name: string;
  @ApiProperty({ type: () => InnerDto }) @ValidateNested() @Type(() => InnerDto) inner: InnerDto;
}
class ParamsDto {
  @IsUUID() id: string;
  @IsInt() @Min(1) @Max(9) level: number;
}

const PROBLEM = { 'application/problem+json': { schema: { $ref: `#/components/schemas/${PROBLEM_SCHEMA_NAME}` } } };

function documentOf(paths: Record<string, unknown>, schemas: Record<string, unknown> = {}): any {
  return { openapi: '3.0.0', info: { title: 't', version: '1' }, servers: [], paths, components: { schemas } };
}

const facts = (overrides: Partial<RouteFacts> & Pick<RouteFacts, 'method' | 'path'>): RouteFacts => ({ pathParams: {}, queryParams: {}, guessLimited: false, isPublic: false, ...overrides });

describe('toOpenApiPath', () => {
  it('joins Nest paths and names parameters as OpenAPI does', () => {
    expect(toOpenApiPath('/api/:tenant/corps/', ':id')).toBe('/api/{tenant}/corps/{id}');
    expect(toOpenApiPath('/', '/')).toBe('/');
  });
});

describe('constraintsOf (class-validator → schema)', () => {
  it('reads uuid, integer and bounds from the decorators that validate', () => {
    expect(constraintsOf(ParamsDto, 'id')).toEqual({ type: 'string', format: 'uuid' });
    expect(constraintsOf(ParamsDto, 'level')).toEqual({ type: 'integer', minimum: 1, maximum: 9 });
  });

  it('makes page and size integers with their bounds', () => {
    expect(constraintsOf(PageBoundsQueryDto, 'page')).toEqual({ type: 'integer', minimum: 0, maximum: 1_000_000 });
    expect(constraintsOf(PageBoundsQueryDto, 'size')).toMatchObject({ type: 'integer', minimum: 1, maximum: 200 });
  });
});

describe('jsonSchemaPattern', () => {
  it('keeps a case-insensitive pattern only when its letters are class ranges it can widen', () => {
    expect(jsonSchemaPattern('^[0-9a-f]{8}-[0-9a-f]{4}$', 'i')).toBe('^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}$');
    expect(new RegExp(jsonSchemaPattern('^[0-9a-f]{8}-[0-9a-f]{4}$', 'i')!).test('ABCDEF01-00ff')).toBe(true);
    expect(jsonSchemaPattern('^[A-Za-z]+(,(asc|desc))?$', 'i')).toBeUndefined();
    expect(jsonSchemaPattern('^\\d+$', '')).toBe('^\\d+$');
  });
});

describe('whitelistedClasses', () => {
  it('follows @ValidateNested properties to the nested DTO', () => {
    expect([...whitelistedClasses(OuterDto)]).toEqual([OuterDto, InnerDto]);
  });
});

describe('enrichOpenApiDocument', () => {
  const base = () =>
    documentOf(
      {
        '/api/things': {
          post: {
            operationId: 'createThing',
            'x-atrium-auth': { credential: 'X', permission: null },
            security: [{ key: [] }],
            requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/OuterDto' } } } },
            responses: { '201': { description: '', content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } } },
          },
          get: {
            operationId: 'listThings',
            'x-atrium-auth': { credential: 'none', permission: null },
            parameters: [{ name: 'page', in: 'query', schema: { type: 'number', minimum: 0 } }],
            responses: { '200': { description: '' }, '409': { description: 'conflict', content: { 'application/json': { schema: { $ref: '#/components/schemas/Extra' } } } } },
          },
        },
        '/api/things/{id}': {
          get: { operationId: 'getThing', 'x-atrium-auth': { credential: 'X', permission: null }, security: [{ key: [] }], parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }], responses: { '200': { description: '' } } },
          delete: { operationId: 'deleteThing', 'x-atrium-auth': { credential: 'X', permission: null }, security: [{ key: [] }], parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }], responses: { '204': { description: '' } } },
        },
      },
      {
        OuterDto: { type: 'object', properties: { name: { type: 'string' }, inner: { $ref: '#/components/schemas/InnerDto' } } },
        InnerDto: { type: 'object', properties: { label: { type: 'string' } } },
        Thing: { type: 'object', properties: { id: { type: 'string' }, parent: { $ref: '#/components/schemas/Extra', nullable: true }, kind: { enum: ['a', 'b'], nullable: true } } },
        Extra: { type: 'object', properties: { reason: { type: 'string' } } },
      },
    );
  const routeFacts = [
    facts({ method: 'post', path: '/api/things', bodyClass: OuterDto, guessLimited: true }),
    facts({ method: 'get', path: '/api/things', queryParams: { page: constraintsOf(PageBoundsQueryDto, 'page') } }),
    facts({ method: 'get', path: '/api/things/{id}', pathParams: { id: { type: 'string', format: 'uuid' } } }),
  ];

  it('declares every error as problem+json with the one Problem schema, where each applies', () => {
    const document = enrichOpenApiDocument(base(), routeFacts) as any;
    const create = document.paths['/api/things'].post;
    expect(Object.keys(create.responses).sort()).toEqual(['201', '400', '401', '403', '413', '429', '503']);
    expect(create.responses['400'].content).toEqual(PROBLEM);
    const get = document.paths['/api/things/{id}'].get;
    expect(Object.keys(get.responses).sort()).toEqual(['200', '400', '401', '403', '404', '503']);
    // A route's own error schema is kept, on top of Problem, under the content type actually sent.
    const conflict = document.paths['/api/things'].get.responses['409'];
    expect(conflict.content['application/problem+json'].schema.allOf).toEqual([{ $ref: '#/components/schemas/Problem' }, { $ref: '#/components/schemas/Extra' }]);
    expect(document.components.schemas.Problem.required).toEqual(['type', 'title', 'status']);
  });

  it('gives ids and paging the formats and bounds their validators enforce', () => {
    const document = enrichOpenApiDocument(base(), routeFacts) as any;
    expect(document.paths['/api/things/{id}'].get.parameters[0].schema).toEqual({ type: 'string', format: 'uuid' });
    expect(document.paths['/api/things'].get.parameters[0].schema).toEqual({ type: 'integer', minimum: 0, maximum: 1_000_000 });
    // Without facts (no ParseUUIDPipe) nothing is claimed.
    expect(document.paths['/api/things/{id}'].delete.parameters[0].schema).toEqual({ type: 'string' });
  });

  it('forbids unknown fields in whitelisted bodies, nested ones too, and nowhere else', () => {
    const document = enrichOpenApiDocument(base(), routeFacts) as any;
    expect(document.components.schemas.OuterDto.additionalProperties).toBe(false);
    expect(document.components.schemas.InnerDto.additionalProperties).toBe(false);
    expect(document.components.schemas.Thing.additionalProperties).toBeUndefined();
  });

  it('leaves a body schema open when the server also sends it (responses may carry more fields)', () => {
    const document = base();
    document.components.schemas.Thing.properties.inner = { $ref: '#/components/schemas/InnerDto' };
    enrichOpenApiDocument(document, routeFacts);
    expect(document.components.schemas.OuterDto.additionalProperties).toBe(false);
    expect(document.components.schemas.InnerDto.additionalProperties).toBeUndefined();
  });

  it('declares security: [] on public operations, a server, and types beside every nullable', () => {
    const document = enrichOpenApiDocument(base(), routeFacts) as any;
    expect(document.paths['/api/things'].get.security).toEqual([]);
    expect(document.paths['/api/things'].post.security).toEqual([{ key: [] }]);
    expect(document.servers).toHaveLength(1);
    // null passes a validator: a nullable $ref becomes "that or null".
    expect(document.components.schemas.Thing.properties.parent).toEqual({ anyOf: [{ $ref: '#/components/schemas/Extra' }, { type: 'object', nullable: true, enum: [null] }] });
    expect(document.components.schemas.Thing.properties.kind).toEqual({ enum: ['a', 'b', null], nullable: true, type: 'string' });
  });

  it('links a create to the get and delete of what it created', () => {
    const document = enrichOpenApiDocument(base(), routeFacts) as any;
    expect(document.paths['/api/things'].post.responses['201'].links).toEqual({
      getThing: expect.objectContaining({ operationId: 'getThing', parameters: { id: '$response.body#/id' } }),
      deleteThing: expect.objectContaining({ operationId: 'deleteThing', parameters: { id: '$response.body#/id' } }),
    });
  });

  it('is idempotent', () => {
    const once = enrichOpenApiDocument(base(), routeFacts);
    expect(enrichOpenApiDocument(structuredClone(once), routeFacts)).toEqual(once);
  });
});
