import { ApiProperty } from '@nestjs/swagger';
import { IsString, MaxLength, MinLength } from 'class-validator';

/** Text field of the multipart `POST /api/upload` (the file itself is the file field `file`). */
export class UploadFileDto {
  @ApiProperty({ description: 'Target path on the server: relative to the namespace\'s workspace (`<first DEPLOY_ALLOWED_DIRS root>/<namespace>`), or absolute inside one of its workspaces; must resolve (symlinks followed) inside them, else 403. Missing folders are created; an existing file is replaced atomically.', example: 'app/.env.production' })
  @IsString() @MinLength(1) @MaxLength(4096)
  path: string;
}

/** Multipart schema of `POST /api/upload` for the OpenAPI document. */
export const UPLOAD_MULTIPART_SCHEMA = {
  type: 'object',
  required: ['file', 'path'],
  properties: {
    file: { type: 'string', format: 'binary', description: 'File content; limit DEPLOY_MAX_UPLOAD_BYTES (413 over it).' },
    path: { type: 'string', description: 'Target path (see UploadFileDto).' },
  },
};

/** Where the file was written. */
export class UploadResultDto {
  @ApiProperty({ description: 'Real absolute path written.' }) path: string;
  @ApiProperty({ description: 'Bytes written.' }) bytes: number;
  @ApiProperty({ description: 'SHA-256 of the content, hex.' }) sha256: string;
}
