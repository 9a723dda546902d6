import { IsInt, IsOptional, IsString, MaxLength, Min, MetadataStorage, validate } from 'class-validator';
import { cacheValidationMetadata } from './validation-metadata-cache';

class BaseQuery {
  @IsOptional()
  @IsInt()
  @Min(0)
  page?: number;
}

class NameQuery extends BaseQuery {
  @IsString()
  @MaxLength(5)
  name!: string;
}

describe('cacheValidationMetadata (validation-metadata-cache.ts)', () => {
  it('answers what the uncached storage answers, once per class and options', () => {
    const storage = new MetadataStorage();
    const plain = new MetadataStorage();
    const lookup = jest.spyOn(storage, 'getTargetValidationMetadatas');
    for (const target of [storage, plain]) {
      target.addValidationMetadata({ target: BaseQuery, propertyName: 'page', type: 'customValidation', constraints: [], validationTypeOptions: {} } as never);
      target.addValidationMetadata({ target: NameQuery, propertyName: 'name', type: 'customValidation', constraints: [], validationTypeOptions: {} } as never);
    }
    cacheValidationMetadata(storage);
    cacheValidationMetadata(storage); // idempotent
    const first = storage.getTargetValidationMetadatas(NameQuery, '', false, false);
    expect(first.map((entry) => entry.propertyName).sort()).toEqual(plain.getTargetValidationMetadatas(NameQuery, '', false, false).map((entry) => entry.propertyName).sort());
    expect(storage.getTargetValidationMetadatas(NameQuery, '', false, false)).toBe(first);
    expect(storage.getTargetValidationMetadatas(NameQuery, '', false, false, ['admin'])).not.toBe(first);
    expect(lookup).toHaveBeenCalledTimes(2);
  });

  it('forgets its answers when metadata is added (a class loaded later), so new rules apply at once', () => {
    const storage = new MetadataStorage();
    cacheValidationMetadata(storage);
    storage.addValidationMetadata({ target: NameQuery, propertyName: 'name', type: 'customValidation', constraints: [], validationTypeOptions: {} } as never);
    expect(storage.getTargetValidationMetadatas(NameQuery, '', false, false)).toHaveLength(1);
    storage.addValidationMetadata({ target: NameQuery, propertyName: 'extra', type: 'customValidation', constraints: [], validationTypeOptions: {} } as never);
    expect(storage.getTargetValidationMetadatas(NameQuery, '', false, false)).toHaveLength(2);
  });

  it('validates with the global storage cached: same errors, inherited rules included (the attack: bad values)', async () => {
    cacheValidationMetadata();
    const good = Object.assign(new NameQuery(), { name: 'abc', page: 1 });
    expect(await validate(good)).toEqual([]);
    for (let round = 0; round < 2; round++) {
      const bad = Object.assign(new NameQuery(), { name: 'far too long', page: -1 });
      const errors = await validate(bad);
      expect(errors.map((error) => [error.property, Object.keys(error.constraints ?? {}).sort()])).toEqual([
        ['name', ['maxLength']],
        ['page', ['min']],
      ]);
    }
  });
});
