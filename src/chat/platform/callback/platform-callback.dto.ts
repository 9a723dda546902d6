import { ApiProperty } from '@nestjs/swagger';
import { IsString, Length } from 'class-validator';
import type { CallbackSignatureParams } from './platform-callback.rules';

/**
 * Query of `POST /api/{tenant}/v1/workChat/callback/{workCorpId}` (an event), WeCom's names. Only the shapes are
 * checked here; the signature and the timestamp's freshness are checked against the corp's token (401).
 */
export class PlatformCallbackQuery {
  @ApiProperty({ name: 'msg_signature', description: 'SHA-1 signature (hex) of the sorted callback token, timestamp, nonce and encrypted payload.', example: '5c45ff5e21c57e6ad56bac8758b79b1d9ac89fd3' })
  @IsString() @Length(1, 128)
  msg_signature: string;

  @ApiProperty({ description: 'When the platform signed the callback, seconds since the epoch; older or newer than CHAT_CALLBACK_MAX_SKEW_MS → 401.', example: '1795404000' })
  @IsString() @Length(1, 20)
  timestamp: string;

  @ApiProperty({ description: 'Random string of the platform.', example: '1372623149' })
  @IsString() @Length(1, 64)
  nonce: string;
}

/** Query of `GET /api/{tenant}/v1/workChat/callback/{workCorpId}` (URL verification when the URL is configured). */
export class PlatformCallbackVerifyQuery extends PlatformCallbackQuery {
  @ApiProperty({ description: 'Encrypted random string (base64); the answer is its plaintext.', example: 'P9nAzCzyDtyTWESHep1vC5X9xho/qYX3Zpb4yKa9SKld1DsH3Iyt3tP3zNdtp+4RPcs8TgAE7OaBO+FZXvnaqQ==' })
  @IsString() @Length(1, 4096)
  echostr: string;
}

/** The signature parameters of a callback query, by their rule names. */
export function toSignatureParams(query: PlatformCallbackQuery): CallbackSignatureParams {
  return { msgSignature: query.msg_signature, timestamp: query.timestamp, nonce: query.nonce };
}
