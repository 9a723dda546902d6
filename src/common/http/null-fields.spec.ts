import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { undeclaredNullFields } from './null-fields';

class Inner {
  @ApiPropertyOptional() label?: string | null;
  @ApiPropertyOptional({ nullable: true, type: String }) note?: string | null;
}

class Outer {
  @ApiPropertyOptional() name?: string | null;
  @ApiPropertyOptional({ nullable: true, type: String }) description?: string | null;
  @ApiProperty({ type: Inner }) inner?: Inner;
  @ApiProperty({ type: [Inner] }) items?: Inner[];
  @ApiPropertyOptional() metadata?: Record<string, unknown>;
  undocumented?: string | null;
}

const build = (fields: Partial<Outer>) => Object.assign(new Outer(), fields);
const inner = (fields: Partial<Inner>) => Object.assign(new Inner(), fields);

describe('undeclaredNullFields', () => {
  it('refuses null where nullable is not declared, and accepts it where it is', () => {
    expect(undeclaredNullFields(build({ name: null, description: null }))).toEqual(['name']);
  });

  it('walks nested DTOs and arrays of them, naming the path', () => {
    const dto = build({ inner: inner({ label: null, note: null }), items: [inner({}), inner({ label: null })] });
    expect(undeclaredNullFields(dto)).toEqual(['inner.label', 'items[1].label']);
  });

  it('leaves free-form objects alone and refuses null on undocumented properties', () => {
    expect(undeclaredNullFields(build({ metadata: { anything: null } }))).toEqual([]);
    expect(undeclaredNullFields(build({ undocumented: null }))).toEqual(['undocumented']);
  });

  it('ignores non-DTO values', () => {
    expect(undeclaredNullFields(null)).toEqual([]);
    expect(undeclaredNullFields({ plain: null })).toEqual([]);
    expect(undeclaredNullFields('text')).toEqual([]);
  });
});
