import { BadRequestException, Controller, Get, Query } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { PageBoundsQueryDto, SortParam, sortEntries, toOrder, toPage } from './page';

describe('paging', () => {
  it('computes total pages', () => {
    expect(toPage(['a'], 41, { page: 2, size: 20 })).toEqual({ content: ['a'], page: 2, size: 20, totalElements: 41, totalPages: 3 });
    expect(toPage([], 0, { page: 0, size: 20 }).totalPages).toBe(0);
  });
  it('maps allow-listed sort fields and refuses others', () => {
    const allowed = { createdAt: 'createdAt', name: 'projectName' };
    expect(toOrder(['name,desc', 'createdAt'], allowed, { createdAt: 'DESC' })).toEqual({ projectName: 'DESC', createdAt: 'ASC' });
    expect(toOrder(undefined, allowed, { createdAt: 'DESC' })).toEqual({ createdAt: 'DESC' });
    expect(() => toOrder(['secretHash,asc'], allowed, {})).toThrow(BadRequestException);
  });
});

describe('SortParam (issue 22, item 2: the sort enum is the server\'s allow-list)', () => {
  const FIELDS = { createdAt: 'createdAt', name: 'projectName' } as const;
  class ThingQuery extends PageBoundsQueryDto {
    @SortParam(FIELDS, ['createdAt,desc'])
    sort?: string[];
  }
  const check = async (query: Record<string, unknown>) => {
    const instance = plainToInstance(ThingQuery, query);
    return { instance, errors: await validate(instance, { whitelist: true, forbidNonWhitelisted: true }) };
  };

  it('lists each field bare, ascending and descending', () => {
    expect(sortEntries(FIELDS)).toEqual(['createdAt', 'createdAt,asc', 'createdAt,desc', 'name', 'name,asc', 'name,desc']);
  });

  it('accepts allowed entries, one or repeated, with the direction in any case, and feeds toOrder', async () => {
    const { instance, errors } = await check({ sort: ['name,DESC', 'createdAt'] });
    expect(errors).toEqual([]);
    expect(instance.sort).toEqual(['name,desc', 'createdAt']);
    expect(toOrder(instance.sort, FIELDS, { createdAt: 'DESC' })).toEqual({ projectName: 'DESC', createdAt: 'ASC' });
    expect((await check({ sort: 'createdAt,asc' })).instance.sort).toEqual(['createdAt,asc']);
    expect((await check({})).errors).toEqual([]);
  });

  it('refuses an unknown field naming the allowed ones, a bad direction, a wrong field case and a non-string', async () => {
    const messages = async (sort: unknown) => (await check({ sort })).errors.flatMap((error) => Object.values(error.constraints ?? {}));
    expect(await messages(['name,asc', 'projectName,asc'])).toEqual(['Cannot sort by "projectName"; allowed: createdAt, name']);
    expect(await messages('name,up')).toEqual(['sort must look like field, field,asc or field,desc']);
    expect(await messages('NAME,asc')).toEqual(['Cannot sort by "NAME"; allowed: createdAt, name']);
    expect(await messages({ name: 'asc' })).toHaveLength(1);
  });

  it('refuses a default order it does not allow (a typo in a declaration fails at start-up)', () => {
    expect(() => SortParam(FIELDS, ['projectName,desc'])).toThrow(/default sort projectName,desc/);
  });

  it('writes the query parameter as an array of the allowed entries, with the default as example', async () => {
    @Controller('things')
    class ThingsController {
      @Get()
      list(@Query() query: ThingQuery): ThingQuery {
        return query;
      }
    }
    const module = await Test.createTestingModule({ controllers: [ThingsController] }).compile();
    const app = module.createNestApplication({ logger: false });
    await app.init();
    try {
      const document = SwaggerModule.createDocument(app, new DocumentBuilder().build());
      const sort = document.paths['/things'].get!.parameters!.find((parameter) => 'name' in parameter && parameter.name === 'sort');
      expect(sort).toMatchObject({
        in: 'query',
        required: false,
        schema: { type: 'array', items: { type: 'string', enum: sortEntries(FIELDS) } },
      });
      expect(JSON.stringify(sort)).toContain('"example":["createdAt,desc"]');
    } finally {
      await app.close();
    }
  });
});
