import { BadRequestException, type ArgumentMetadata, type ValidationPipe } from '@nestjs/common';
import { Transform, Type } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsOptional, Max, Min } from 'class-validator';
import { createValidationPipe } from './validation';

class ListQuery {
  @IsOptional() @Type(() => Number) @IsInt() @Min(0) @Max(100)
  page: number = 0;

  @IsOptional() @Transform(({ value }) => (Array.isArray(value) ? value : [value])) @IsIn(['name', 'name,desc'], { each: true })
  sort?: string[];

  @IsOptional() @Transform(({ value }) => value === 'true' || (value === 'false' ? false : value)) @IsBoolean()
  aiEnabled?: boolean;
}

const asQuery = (metatype: unknown = ListQuery): ArgumentMetadata => ({ type: 'query', metatype: metatype as ArgumentMetadata['metatype'], data: undefined });
const refusal = async (pipe: ValidationPipe, value: unknown): Promise<unknown> => {
  try {
    await pipe.transform(value, asQuery());
  } catch (error) {
    expect(error).toBeInstanceOf(BadRequestException);
    return (error as BadRequestException).getResponse();
  }
  throw new Error('expected a 400');
};

describe('createValidationPipe: validated queries kept (validation.ts)', () => {
  it('answers a query seen before with an equal DTO of the same class, a fresh copy each time', async () => {
    const pipe = createValidationPipe();
    const fresh = createValidationPipe();
    const query = { page: '2', sort: ['name,desc'], aiEnabled: 'false' };
    const first = (await pipe.transform({ ...query }, asQuery())) as ListQuery;
    const second = (await pipe.transform({ ...query }, asQuery())) as ListQuery;
    const uncached = await fresh.transform({ ...query }, asQuery());
    expect(second).toBeInstanceOf(ListQuery);
    expect(second).toEqual(uncached);
    expect(Object.keys(second)).toEqual(Object.keys(uncached as object));
    expect(second).not.toBe(first);
    expect(second.sort).not.toBe(first.sort);
    // A caller changing its DTO changes no later request's.
    second.sort!.push('name');
    second.page = 99;
    expect(await pipe.transform({ ...query }, asQuery())).toEqual(uncached);
  });

  it('keys by class and query: another query or another class is validated on its own', async () => {
    class OtherQuery {
      @IsOptional() @Type(() => Number) @IsInt() @Max(1)
      page: number = 0;
    }
    const pipe = createValidationPipe();
    expect(await pipe.transform({ page: '2' }, asQuery())).toEqual(Object.assign(new ListQuery(), { page: 2 }));
    expect(await pipe.transform({ page: '3' }, asQuery())).toEqual(Object.assign(new ListQuery(), { page: 3 }));
    await expect(pipe.transform({ page: '2' }, asQuery(OtherQuery))).rejects.toBeInstanceOf(BadRequestException);
  });

  it('refuses a bad query every time with the same problem as an uncached pipe', async () => {
    const pipe = createValidationPipe();
    const expected = await refusal(createValidationPipe(), { page: '-1', extra: 'x' });
    expect(await refusal(pipe, { page: '-1', extra: 'x' })).toEqual(expected);
    expect(await refusal(pipe, { page: '-1', extra: 'x' })).toEqual(expected);
    // A valid query kept first does not make a bad one pass.
    await pipe.transform({ page: '1' }, asQuery());
    expect(await refusal(pipe, { page: '1', extra: 'x' })).toMatchObject({ errors: [{ field: 'extra' }] });
  });

  it('passes an untyped query through as it came, every time', async () => {
    const pipe = createValidationPipe();
    const raw = { anything: 'goes' };
    expect(await pipe.transform(raw, asQuery(Object))).toBe(raw);
    const again = { anything: 'goes' };
    expect(await pipe.transform(again, asQuery(Object))).toBe(again);
  });
});
