import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';

/**
 * Comment optimize (chat-management-api.md, MessageCommentRequestOptimize): the operator's draft review of an AI
 * message, to be rewritten into a clear, actionable review. Without `content`, the caller's saved comment is used.
 */
export class MessageCommentRequestOptimize {
  @ApiPropertyOptional({ description: 'The draft review text; default the caller\'s saved comment on the message.', maxLength: 4000, example: 'too formal, say the hours' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(4000)
  content?: string;
}

/**
 * Advice optimize (chat-management-api.md, MessageAdviceOptimizerRequest): the operator's advice on how the message
 * should have been written; the model rewrites the message's text accordingly.
 */
export class MessageAdviceOptimizerRequest {
  @ApiProperty({ description: 'How the message should change.', maxLength: 4000, example: 'Friendlier, and mention we open at 9 on Sundays.' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(4000)
  advice: string;
}

/** The result of an optimize call (chat-management-api.md, OptimizeDTO). */
export class OptimizeDTO {
  @ApiProperty({ description: 'The text before: the draft review (comment optimize) or the message text (advice optimize).' })
  original: string;

  @ApiProperty({ description: 'The model\'s improved text.' })
  optimized: string;

  @ApiPropertyOptional({ type: String, nullable: true, description: 'The advice followed (advice optimize), else null.' })
  advice: string | null;

  @ApiProperty({ description: 'The model that wrote it (CHAT_LLM_MODEL).', example: 'gpt-4o-mini' })
  model: string;
}
