import { ApiProperty, ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsNotEmpty, IsObject, IsOptional, IsString, IsUrl, MaxLength } from 'class-validator';
import { PageBoundsQueryDto, SortParam } from '../../common/paging/page';
import {
  MODEL_PROVIDERS,
  MODEL_PURPOSES,
  MODEL_TYPES,
  ModelConfigEntity,
  ModelProvider,
  ModelPurpose,
  ModelType,
} from './model-config.entity';

/** Body of `POST /api/model-configs`. Evaluation APIs use the spec's snake_case field names. */
export class CreateModelConfigDto {
  @ApiProperty({ description: 'Display name.', maxLength: 128, example: 'judge-gpt' })
  @IsString() @IsNotEmpty() @MaxLength(128)
  name: string;

  @ApiPropertyOptional({ description: 'Provider protocol.', enum: MODEL_PROVIDERS, default: 'openai_compatible' })
  @IsOptional() @IsIn(MODEL_PROVIDERS)
  provider?: ModelProvider;

  @ApiProperty({ description: 'Base URL of the OpenAI-compatible API (…/v1).', example: 'http://127.0.0.1:8000/v1' })
  @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'] }) @MaxLength(2048)
  base_url: string;

  @ApiProperty({ description: 'Model name sent to the API.', maxLength: 128, example: 'qwen2.5-72b-instruct' })
  @IsString() @IsNotEmpty() @MaxLength(128)
  model: string;

  @ApiPropertyOptional({ description: 'API key; write-only (never returned). Omit on update to keep it; send "" to clear it.', writeOnly: true })
  @IsOptional() @IsString() @MaxLength(4096)
  api_key?: string;

  @ApiPropertyOptional({ description: 'Model type.', enum: MODEL_TYPES, default: 'chat' })
  @IsOptional() @IsIn(MODEL_TYPES)
  type?: ModelType;

  @ApiPropertyOptional({ description: 'What the platform uses it for.', enum: MODEL_PURPOSES, default: 'general' })
  @IsOptional() @IsIn(MODEL_PURPOSES)
  purpose?: ModelPurpose;

  @ApiPropertyOptional({ description: 'Capability metadata (free-form JSON object).', type: 'object', additionalProperties: true, example: { contextWindow: 128000, jsonMode: true } })
  @IsOptional() @IsObject()
  capabilities?: Record<string, unknown>;

  @ApiPropertyOptional({ description: 'Disabled configurations are never used.', default: true })
  @IsOptional() @IsBoolean()
  enabled?: boolean;

  @ApiPropertyOptional({
    description:
      'Whether the model accepts `response_format: {"type": "json_object"}` (OpenAI JSON mode). Only when true does the llm-rubric judge send it; if the model still refuses the request (HTTP 400/415/422), the judge asks once more without it. Default false: the prompt alone asks for JSON, which every chat model can follow.',
    default: false,
  })
  @IsOptional() @IsBoolean()
  supports_response_format?: boolean;

  @ApiPropertyOptional({ description: 'Make this the analysis default (rule 5); clears the previous holder. Only an enabled chat configuration may hold it (400 otherwise).', default: false })
  @IsOptional() @IsBoolean()
  is_analysis_default?: boolean;
}

/** Body of `PATCH /api/model-configs/{id}`: any subset of the create fields. */
export class UpdateModelConfigDto extends PartialType(CreateModelConfigDto) {}

/** Query of `GET /api/model-configs`. */
/** Sort fields of `GET /api/model-configs`: field → entity property; used by the query's sort and the service's toOrder. */
export const MODEL_CONFIG_SORT_FIELDS = { createdAt: 'createdAt', name: 'name' } as const;

export class ModelConfigQueryDto extends PageBoundsQueryDto {
  @SortParam(MODEL_CONFIG_SORT_FIELDS, ['createdAt,desc'])
  sort?: string[];

  @ApiPropertyOptional({ description: 'Only this purpose.', enum: MODEL_PURPOSES })
  @IsOptional() @IsIn(MODEL_PURPOSES)
  purpose?: ModelPurpose;
}

/** A model configuration as returned: everything but the key. */
export class ModelConfigDto {
  @ApiProperty({ description: 'Id (UUID).' }) id: string;
  @ApiProperty({ description: 'Display name.' }) name: string;
  @ApiProperty({ description: 'Provider protocol.', enum: MODEL_PROVIDERS }) provider: ModelProvider;
  @ApiProperty({ description: 'Base URL.' }) base_url: string;
  @ApiProperty({ description: 'Model name.' }) model: string;
  @ApiProperty({ description: 'Whether an API key is stored (the key itself is never returned).' }) has_api_key: boolean;
  @ApiProperty({ description: 'Model type.', enum: MODEL_TYPES }) type: ModelType;
  @ApiProperty({ description: 'Purpose.', enum: MODEL_PURPOSES }) purpose: ModelPurpose;
  @ApiProperty({ description: 'Capability metadata.', type: 'object', additionalProperties: true }) capabilities: Record<string, unknown>;
  @ApiProperty({ description: 'Enabled flag.' }) enabled: boolean;
  @ApiProperty({ description: 'Whether the judge sends `response_format: json_object` to this model (issue 24).' }) supports_response_format: boolean;
  @ApiProperty({ description: 'The one analysis default.' }) is_analysis_default: boolean;
  @ApiProperty({ description: 'Created (ISO 8601).' }) created_at: string;
  @ApiProperty({ description: 'Last updated (ISO 8601).' }) updated_at: string;
}

/** Maps a row to its response; the key never leaves. */
export function toModelConfigDto(row: ModelConfigEntity): ModelConfigDto {
  return {
    id: row.id,
    name: row.name,
    provider: row.provider,
    base_url: row.baseUrl,
    model: row.model,
    has_api_key: Boolean(row.apiKey),
    type: row.type,
    purpose: row.purpose,
    capabilities: row.capabilities,
    enabled: row.enabled,
    supports_response_format: row.supportsResponseFormat,
    is_analysis_default: row.isAnalysisDefault,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
