import { ApiProperty, ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  Validate,
  ValidateNested,
  ValidationArguments,
  ValidatorConstraint,
  ValidatorConstraintInterface,
} from 'class-validator';
import { PageBoundsQueryDto, SortParam } from '../../common/paging/page';
import { RULE_TYPES, RuleDefinition } from '../rules/rule.types';
import { validateRuleDefaults, validateRuleDefinition } from '../rules/rule-evaluator';
import type { ScenarioEntity } from './scenario.entity';

/** Most cases one scenario may hold. */
export const MAX_CASES_PER_SCENARIO = 50_000;

@ValidatorConstraint({ name: 'ruleDefinitions' })
class RuleDefinitionsConstraint implements ValidatorConstraintInterface {
  private problems: string[] = [];
  validate(rules: unknown): boolean {
    this.problems = Array.isArray(rules) ? rules.flatMap((rule, index) => validateRuleDefinition(rule).map((problem) => `rules[${index}]: ${problem}`)) : ['rules must be an array'];
    return this.problems.length === 0;
  }
  defaultMessage(): string {
    return this.problems.join('; ');
  }
}

@ValidatorConstraint({ name: 'ruleDefaults' })
class RuleDefaultsConstraint implements ValidatorConstraintInterface {
  private problems: string[] = [];
  validate(llmConfig: unknown): boolean {
    this.problems = typeof llmConfig === 'object' && llmConfig !== null ? validateRuleDefaults((llmConfig as Record<string, unknown>).rule_defaults) : [];
    return this.problems.length === 0;
  }
  defaultMessage(): string {
    return `llm_config.${this.problems.join('; ')}`;
  }
}

@ValidatorConstraint({ name: 'singleOrMultiTurn' })
class SingleOrMultiTurnConstraint implements ValidatorConstraintInterface {
  validate(_value: unknown, args: ValidationArguments): boolean {
    const item = args.object as ScenarioCaseDto;
    return (item.input !== undefined) !== (item.turns !== undefined);
  }
  defaultMessage(): string {
    return 'a case has exactly one of input (single turn) or turns (multi-turn)';
  }
}

/** One case of a scenario. */
export class ScenarioCaseDto {
  @ApiProperty({ description: 'Case id, unique within the scenario; results and comparisons match cases by it.', example: 'refund-policy-1' })
  @IsString() @Matches(/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$/, { message: 'case id may use letters, digits and _ . : - (max 64)' })
  @Validate(SingleOrMultiTurnConstraint)
  id: string;

  @ApiPropertyOptional({ description: 'Single-turn input message.', maxLength: 20000 })
  @IsOptional() @IsString() @MinLength(1) @MaxLength(20000)
  input?: string;

  @ApiPropertyOptional({ description: 'Multi-turn input: user messages sent in order, each after the target replied to the previous one. Rules apply to the last reply.', type: [String] })
  @IsOptional() @IsArray() @ArrayMinSize(1) @ArrayMaxSize(50) @IsString({ each: true }) @MaxLength(20000, { each: true })
  turns?: string[];

  @ApiPropertyOptional({ description: 'Expected output, for reference in reports.', maxLength: 20000 })
  @IsOptional() @IsString() @MaxLength(20000)
  expected?: string;

  @ApiProperty({
    description:
      `Rules (assertions) on the reply: { type, value?, weight?, threshold?, … }. Types: ${RULE_TYPES.join(', ')}. ` +
      '`regex` (`value`, `flags`: `i` `m` `s`; `u` `g` `y` `d` have no effect) and the `pattern`/`patternProperties` of `json-schema`/`is-json` schemas run on the RE2 engine (linear time): JavaScript syntax without backreferences (`\\1`, `\\k<name>`), lookahead/lookbehind, atomic groups or possessive quantifiers — such a pattern is refused with 400 naming the construct. ' +
      '`weight` (>= 0, default 1): share of the case score; `weight: 0` is informational — the rule is reported but never decides the case. ' +
      'Text rules compare NFC-normalised text; `normalize: "NFKC"` also folds full-width and compatibility forms (１２３ → 123). `icontains` and `icase` use full Unicode case folding (ß = ss, final ς = σ); `locale` (BCP 47, e.g. `"tr"`: İ↔i, I↔ı) tunes folding and word segmentation, with a scenario default in `llm_config.rule_defaults`. `levenshtein` counts grapheme clusters (an emoji is one edit; at most 20000 each side) and `word-count` uses Unicode word segmentation (CJK included). `contains`/`icontains` take a number as its text; `contains-any`/`contains-all` take an array or a comma string. `json-schema` checks `format` (email, date-time, uri…) and reads draft 2020-12 when `$schema` says so. ' +
      '`dialect: "promptfoo"` reads the rule in promptfoo 0.121\'s shape and semantics (`value` for word-count `{min, max}` and the is-json schema; icontains-any/icontains-all; no trimming or normalisation), except that `regex` runs on RE2 and `llm-rubric` needs a `pass` in the judge\'s answer. See docs/evaluation-rules.md.',
    type: 'array',
    items: { type: 'object', additionalProperties: true },
    example: [{ type: 'icontains', value: 'refund' }, { type: 'latency', threshold: 3000 }],
  })
  @IsArray() @ArrayMaxSize(50) @Validate(RuleDefinitionsConstraint)
  rules: RuleDefinition[];

  @ApiPropertyOptional({ description: 'Weighted score 0..1 that passes the case; without it every rule must pass.', minimum: 0, maximum: 1 })
  @IsOptional() @IsNumber() @Min(0) @Max(1)
  threshold?: number;

  @ApiPropertyOptional({ description: 'Labels of the case; a run\'s report can be filtered by one (`GET /api/reports/{id}?tag=…`).', type: [String], maxItems: 20, example: ['refunds', 'eu'] })
  @IsOptional() @IsArray() @ArrayMaxSize(20)
  @Matches(/^[\p{L}\p{N}][\p{L}\p{N}_.:/ -]{0,63}$/u, { each: true, message: 'each tag must be 1–64 letters, digits, spaces or _ . : / -, starting with a letter or digit' })
  tags?: string[];
}

/** Body of `POST /api/scenarios`. A `version` sent by a client is ignored (rule 1). */
export class CreateScenarioDto {
  @ApiProperty({ description: 'Name.', maxLength: 200 })
  @IsString() @MinLength(1) @MaxLength(200)
  name: string;

  @ApiPropertyOptional({ description: 'Description (metadata: editing it keeps the version).', maxLength: 10000 })
  @IsOptional() @IsString() @MaxLength(10000)
  description?: string;

  @ApiPropertyOptional({ description: 'Free-form metadata (tags, owner…); editing it keeps the version.', type: 'object', additionalProperties: true })
  @IsOptional() @IsObject()
  metadata?: Record<string, unknown>;

  @ApiProperty({ description: 'The cases (syllabus).', type: [ScenarioCaseDto] })
  @IsArray() @ArrayMinSize(1) @ArrayMaxSize(MAX_CASES_PER_SCENARIO) @IsObject({ each: true }) @ValidateNested({ each: true }) @Type(() => ScenarioCaseDto)
  cases: ScenarioCaseDto[];

  @ApiPropertyOptional({ description: 'Model bindings (syllabus), e.g. { "judge": "<model configuration id>" } for llm-rubric rules.', type: 'object', additionalProperties: true })
  @IsOptional() @IsObject()
  model_bindings?: Record<string, unknown>;

  @ApiPropertyOptional({
    description:
      'LLM settings (syllabus), e.g. { "temperature": 0 } for the judge. `rule_defaults`: `{ "locale"?: BCP 47 tag, "normalize"?: "NFC" | "NFKC" }`, the default of those rule options for every Atrium-dialect rule of the scenario (a rule\'s own value wins); invalid values are refused with 400.',
    type: 'object',
    additionalProperties: true,
    example: { temperature: 0, rule_defaults: { locale: 'tr', normalize: 'NFKC' } },
  })
  @IsOptional() @IsObject() @Validate(RuleDefaultsConstraint)
  llm_config?: Record<string, unknown>;

  @ApiPropertyOptional({ description: 'Ignored: the system keeps the version (rule 1).', readOnly: true })
  @IsOptional()
  version?: unknown;
}

/** Body of `PATCH /api/scenarios/{id}`: any subset; the version goes up only when the syllabus changes. */
export class UpdateScenarioDto extends PartialType(CreateScenarioDto) {}

/** Sort fields of `GET /api/scenarios`: field → entity property; used by the query's sort and the service's toOrder. */
export const SCENARIO_SORT_FIELDS = { createdAt: 'scenario.createdAt', name: 'scenario.name', version: 'scenario.version' } as const;

/** Query of `GET /api/scenarios`. */
export class ScenarioQueryDto extends PageBoundsQueryDto {
  @SortParam(SCENARIO_SORT_FIELDS, ['createdAt,desc'])
  sort?: string[];

  @ApiPropertyOptional({ description: 'Name contains (case-insensitive).', maxLength: 200 })
  @IsOptional() @IsString() @MaxLength(200)
  q?: string;
}

/** A scenario in lists: everything but the cases. */
export class ScenarioSummaryDto {
  @ApiProperty({ description: 'Id (UUID).' }) id: string;
  @ApiProperty({ description: 'Name.' }) name: string;
  @ApiProperty({ description: 'Description.', nullable: true, type: String }) description: string | null;
  @ApiProperty({ description: 'Metadata.', type: 'object', additionalProperties: true }) metadata: Record<string, unknown>;
  @ApiProperty({ description: 'System-kept version, from 1 (rule 1); shown as v<n>.' }) version: number;
  @ApiProperty({ description: 'Number of cases.' }) case_count: number;
  @ApiProperty({ description: 'Created (ISO 8601).' }) created_at: string;
  @ApiProperty({ description: 'Last updated (ISO 8601).' }) updated_at: string;
}

/** A scenario as returned. */
export class ScenarioDto {
  @ApiProperty({ description: 'Id (UUID).' }) id: string;
  @ApiProperty({ description: 'Name.' }) name: string;
  @ApiProperty({ description: 'Description.', nullable: true, type: String }) description: string | null;
  @ApiProperty({ description: 'Metadata.', type: 'object', additionalProperties: true }) metadata: Record<string, unknown>;
  @ApiProperty({ description: 'Cases.', type: [ScenarioCaseDto] }) cases: ScenarioCaseDto[];
  @ApiProperty({ description: 'Model bindings.', type: 'object', additionalProperties: true }) model_bindings: Record<string, unknown>;
  @ApiProperty({ description: 'LLM settings.', type: 'object', additionalProperties: true }) llm_config: Record<string, unknown>;
  @ApiProperty({ description: 'System-kept version, from 1 (rule 1); shown as v<n>.' }) version: number;
  @ApiProperty({ description: 'Number of cases.' }) case_count: number;
  @ApiProperty({ description: 'Created (ISO 8601).' }) created_at: string;
  @ApiProperty({ description: 'Last updated (ISO 8601).' }) updated_at: string;
}

/** Maps a row to its response. */
export function toScenarioDto(row: ScenarioEntity): ScenarioDto {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    metadata: row.metadata,
    cases: row.cases,
    model_bindings: row.modelBindings,
    llm_config: row.llmConfig,
    version: row.version,
    case_count: row.cases.length,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
