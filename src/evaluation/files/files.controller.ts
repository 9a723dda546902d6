import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Patch, Post, Query, Res, StreamableFile, UploadedFile, UseInterceptors } from '@nestjs/common';
import { FileInterceptor } from '@nestjs/platform-express';
import {
  ApiBadRequestResponse,
  ApiBody,
  ApiConsumes,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiPayloadTooLargeResponse,
  ApiProduces,
  ApiTags,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { Authenticated } from '../../common/auth/auth.decorators';
import { UploadedFileCleanupInterceptor } from '../../common/http/uploaded-file-cleanup.interceptor';
import { Page, pageSchema } from '../../common/paging/page';
import { attachmentContentDisposition } from '../../common/storage/content-disposition';
import { EVAL_SECURITY_SCHEMES, EvaluationCredentialStrategy } from '../auth/evaluation-auth';
import { FileSizeLimitInterceptor } from './file-size-limit.interceptor';
import { FILE_UPLOAD_SCHEMA, FileDto, FileQueryDto, UpdateFileDto, UploadFileFieldsDto } from './files.dto';
import { FilesService } from './files.service';

/** Evaluation files (issue 4: Files; paths not shown in the spec): upload, list, metadata, download, move, delete. */
@ApiTags('evaluation: files')
@Controller('api/files')
@Authenticated(EvaluationCredentialStrategy, { securityScheme: EVAL_SECURITY_SCHEMES })
export class FilesController {
  constructor(private readonly files: FilesService) {}

  @Post()
  @UseInterceptors(UploadedFileCleanupInterceptor, FileSizeLimitInterceptor, FileInterceptor('file'))
  @ApiConsumes('multipart/form-data')
  @ApiBody({ schema: FILE_UPLOAD_SCHEMA })
  @ApiOperation({
    operationId: 'uploadFile',
    summary: 'Upload a file',
    description:
      'multipart/form-data with the content in the field `file`, optional `category_id` and `description`. The content goes to the file storage under a random key (the file name is kept for display only, never used as a path); ' +
      'size and SHA-256 are measured on the way, the content type is decided from the bytes (see `content_type`). 400 no file; 404 unknown category; 413 over EVAL_FILE_MAX_BYTES (default 50 MiB), nothing stored.',
  })
  @ApiCreatedResponse({ type: FileDto })
  @ApiBadRequestResponse({ description: 'No `file` field, or invalid fields.' })
  @ApiNotFoundResponse({ description: 'Unknown category.' })
  @ApiPayloadTooLargeResponse({ description: 'File over EVAL_FILE_MAX_BYTES; nothing stored.' })
  upload(@UploadedFile() file: Express.Multer.File | undefined, @Body() body: UploadFileFieldsDto): Promise<FileDto> {
    return this.files.upload(file, body);
  }

  @Get()
  @ApiOperation({ operationId: 'listFiles', summary: 'List files', description: 'Newest first; filter by `category_id` (`root` = files in no category) and by name (`q`); sortable by createdAt, name, size.' })
  @ApiOkResponse({ type: pageSchema(FileDto, 'Files') })
  list(@Query() query: FileQueryDto): Promise<Page<FileDto>> {
    return this.files.list(query);
  }

  @Get(':id')
  @ApiOperation({ operationId: 'getFile', summary: 'Read a file\'s metadata' })
  @ApiOkResponse({ type: FileDto })
  @ApiNotFoundResponse({ description: 'Unknown file.' })
  get(@Param('id', ParseUUIDPipe) id: string): Promise<FileDto> {
    return this.files.get(id);
  }

  @Get(':id/download')
  // The stored file's own media type (application/pdf, text/csv…): any, with octet-stream as the usual one.
  @ApiProduces('application/octet-stream', '*/*')
  @ApiOperation({
    operationId: 'downloadFile',
    summary: 'Download a file\'s content',
    description:
      'Streams the bytes with the stored `Content-Type`, `Content-Length`, `Content-Disposition: attachment; filename="<ASCII fallback>"; filename*=UTF-8\'\'<percent-encoded name>` (RFC 6266/8187) and `X-Content-Type-Options: nosniff`.',
  })
  @ApiOkResponse({
    description: 'The content (any media type: the file\'s stored `content_type`).',
    schema: { type: 'string', format: 'binary' },
    headers: {
      'Content-Disposition': { description: 'attachment, with the file name as ASCII fallback and as UTF-8 (filename*).', schema: { type: 'string' } },
      'X-Content-Type-Options': { description: 'nosniff', schema: { type: 'string' } },
    },
  })
  @ApiNotFoundResponse({ description: 'Unknown file.' })
  async download(@Param('id', ParseUUIDPipe) id: string, @Res({ passthrough: true }) response: Response): Promise<StreamableFile> {
    const { file, stream, size } = await this.files.open(id);
    // setHeader rather than res.set: Express would append a charset of its own to some types.
    response.setHeader('Content-Type', file.content_type);
    response.setHeader('Content-Length', String(size));
    response.setHeader('Content-Disposition', attachmentContentDisposition(file.name));
    response.setHeader('X-Content-Type-Options', 'nosniff');
    response.setHeader('Content-Security-Policy', "default-src 'none'; sandbox");
    response.setHeader('Cache-Control', 'private, no-cache');
    return new StreamableFile(stream);
  }

  @Patch(':id')
  @ApiOperation({ operationId: 'updateFile', summary: 'Move, rename or describe a file', description: '`category_id`: move into that category (null = into none). `name` is cleaned like an uploaded name. 404 unknown file or category.' })
  @ApiOkResponse({ type: FileDto })
  @ApiNotFoundResponse({ description: 'Unknown file or category.' })
  update(@Param('id', ParseUUIDPipe) id: string, @Body() body: UpdateFileDto): Promise<FileDto> {
    return this.files.update(id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({
    operationId: 'deleteFile',
    summary: 'Delete a file',
    description: 'Deletes the row, then the stored content. Should removing the content fail, the file is still gone for every reader; the failure is logged with the storage key and the orphaned content is left for an operator.',
  })
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiNotFoundResponse({ description: 'Unknown file.' })
  remove(@Param('id', ParseUUIDPipe) id: string): Promise<void> {
    return this.files.remove(id);
  }
}
