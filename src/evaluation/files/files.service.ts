import { BadRequestException, HttpStatus, Inject, Injectable, Logger, NotFoundException, PayloadTooLargeException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { DataSource, EntityManager, IsNull, Raw } from 'typeorm';
import { ProblemException } from '../../common/http/problem-details';
import { Page, toOrder, toPage } from '../../common/paging/page';
import { detectContentType } from '../../common/storage/content-type';
import { toDisplayFileName } from '../../common/storage/file-name';
import { BLOB_STORAGE, BlobNotFoundError, BlobStorage, BlobTooLargeError } from '../../common/storage/storage.port';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { FILE_SORT_FIELDS, FileDto, FileQueryDto, toFileDto, UpdateFileDto, UploadFileFieldsDto } from './files.dto';
import { StoredFileEntity } from './stored-file.entity';
import { containsMatch } from '../../database/like-contains';
import { ListPager } from '../../common/paging/list-pager';

/** Key namespace of evaluation files in the file storage port. */
export const EVALUATION_FILES_NAMESPACE = 'evaluation-files';

/** Blob removals run this many at a time after a commit. */
const BLOB_REMOVAL_CONCURRENCY = 8;

/** `bytes` for people: `50 MiB`, `64 KiB`, `12 bytes`. */
export function formatBytes(bytes: number): string {
  for (const [unit, size] of [['GiB', 1024 ** 3], ['MiB', 1024 ** 2], ['KiB', 1024]] as const) {
    if (bytes >= size) return `${Number((bytes / size).toFixed(1))} ${unit}`;
  }
  return `${bytes} bytes`;
}

/** The 413 of an upload over EVAL_FILE_MAX_BYTES. */
export function fileTooLarge(maxBytes: number): PayloadTooLargeException {
  return new PayloadTooLargeException(`The file is larger than the limit of ${formatBytes(maxBytes)} (${maxBytes} bytes); nothing was stored.`);
}

/** An upload as multer saved it to its temporary folder. */
export type UploadedTempFile = Pick<Express.Multer.File, 'path' | 'size' | 'originalname' | 'mimetype'>;

/**
 * Evaluation files (issue 4: Files): metadata rows in `eval_file`, contents in the file storage port under random
 * keys. File names are kept for display and downloads only; they never reach the disk.
 *
 * Order of writes: an upload stores the blob first, then inserts the row (if the insert fails the blob is removed
 * again; if the process dies in between, the blob is left without a row: unreachable, never served). A deletion
 * commits the row removal first, then removes the blob; if that removal fails, the failure is logged as a warning
 * naming the key, the API still answers success (the file is gone for every reader), and the orphaned blob stays
 * on the storage until removed by hand. Keys are never reused, so an orphan can never resurface as another file.
 */
@Injectable()
export class FilesService {
  private readonly logger = new Logger(FilesService.name);

  constructor(
    private readonly pager: ListPager,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(BLOB_STORAGE) private readonly storage: BlobStorage,
  ) {}

  /**
   * Stores an uploaded file: decides its content type from the bytes (src/common/storage/content-type.ts), streams
   * it into the storage port (hashing it), and records it.
   * @param file multer's temporary copy (removed afterwards by UploadedFileCleanupInterceptor); undefined = none sent
   * @throws BadRequestException (400) no file; PayloadTooLargeException (413) over EVAL_FILE_MAX_BYTES;
   *   NotFoundException (404) unknown category
   */
  async upload(file: UploadedTempFile | undefined, fields: UploadFileFieldsDto): Promise<FileDto> {
    if (!file) throw new BadRequestException('No file was sent: attach the content as the multipart/form-data field "file".');
    const maxBytes = this.config.evaluation.fileMaxBytes;
    if (file.size > maxBytes) throw fileTooLarge(maxBytes);
    const categoryId = fields.category_id ?? null;
    if (categoryId) await this.lockCategory(this.dataSource.manager, categoryId, false);

    const contentType = await detectContentType(file.path, file.mimetype);
    let blob;
    try {
      blob = await this.storage.put(createReadStream(file.path), { namespace: EVALUATION_FILES_NAMESPACE, maxBytes });
    } catch (error) {
      if (error instanceof BlobTooLargeError) throw fileTooLarge(maxBytes);
      throw error;
    }
    try {
      const row = await this.dataSource.transaction(async (manager) => {
        // FOR SHARE: a concurrent deletion of the category waits for this insert, then deletes the new file too.
        if (categoryId) await this.lockCategory(manager, categoryId, true);
        return manager.save(
          manager.create(StoredFileEntity, {
            name: toDisplayFileName(file.originalname),
            description: fields.description ?? null,
            sizeBytes: blob.size,
            sha256: blob.sha256,
            contentType,
            categoryId,
            storageKey: blob.key,
          }),
        );
      });
      return toFileDto(row);
    } catch (error) {
      await this.discardBlobs([blob.key]);
      throw error;
    }
  }

  /** Newest first; filter by category (`root` = none) and name; sortable by createdAt, name, size. */
  async list(query: FileQueryDto): Promise<Page<FileDto>> {
    const order = toOrder(query.sort, FILE_SORT_FIELDS, { createdAt: 'DESC' });
    const where = {
      ...(query.category_id ? { categoryId: query.category_id === 'root' ? IsNull() : query.category_id.toLowerCase() } : {}),
      ...(query.q ? { name: Raw((column) => containsMatch(column, 'q', query.q!)[0], containsMatch('', 'q', query.q)[1]) } : {}),
    };
    const { rows, ...slice } = await this.pager.find(this.dataSource.getRepository(StoredFileEntity), {
      where,
      order,
      // A name search counts exactly only up to PAGING_SEARCH_TOTAL_EXACT_CAP (docs/lists-and-search.md).
    }, query, { search: Boolean(query.q) });
    return toPage(rows.map(toFileDto), slice, query);
  }

  /** @throws NotFoundException (404) */
  async get(id: string): Promise<FileDto> {
    return toFileDto(await this.find(id));
  }

  /**
   * Opens a file's content for download.
   * @returns the metadata the response headers need and a stream of the bytes
   * @throws NotFoundException (404) unknown file; ProblemException (500) the row exists but its content is missing
   *   from the storage (logged: data was lost outside the API)
   */
  async open(id: string): Promise<{ file: FileDto; stream: Readable; size: number }> {
    const row = await this.find(id);
    try {
      const { stream, size } = await this.storage.open(row.storageKey);
      return { file: toFileDto(row), stream, size };
    } catch (error) {
      if (!(error instanceof BlobNotFoundError)) throw error;
      await this.find(id); // deleted meanwhile → 404
      this.logger.error(`The content of file ${id} (storage key ${row.storageKey}) is missing from the storage.`);
      throw new ProblemException(HttpStatus.INTERNAL_SERVER_ERROR, `The content of file ${id} is missing from the storage; ask an operator to restore it or delete the file.`);
    }
  }

  /**
   * Moves, renames or describes a file.
   * @throws NotFoundException (404) unknown file or target category
   */
  async update(id: string, input: UpdateFileDto): Promise<FileDto> {
    const row = await this.dataSource.transaction(async (manager) => {
      // Category before file row: the same lock order as a category deletion (categories, then their files), so the two cannot deadlock.
      if (input.category_id) await this.lockCategory(manager, input.category_id, true);
      const current = await manager.findOne(StoredFileEntity, { where: { id }, lock: { mode: 'pessimistic_write' } });
      if (!current) throw new NotFoundException(`No file ${id}.`);
      if (input.category_id !== undefined) current.categoryId = input.category_id;
      if (input.name !== undefined) current.name = toDisplayFileName(input.name);
      if (input.description !== undefined) current.description = input.description;
      return manager.save(current);
    });
    return toFileDto(row);
  }

  /**
   * Deletes a file: the row in a transaction, then its content (see the class note for a failed removal).
   * @throws NotFoundException (404)
   */
  async remove(id: string): Promise<void> {
    const result = await this.dataSource
      .createQueryBuilder()
      .delete()
      .from(StoredFileEntity)
      .where('id = :id', { id })
      .returning('storage_key')
      .execute();
    const rows = result.raw as { storage_key: string }[];
    if (rows.length === 0) throw new NotFoundException(`No file ${id}.`);
    await this.discardBlobs(rows.map((entry) => entry.storage_key));
  }

  /**
   * Removes stored contents whose rows are already gone (after the deleting transaction committed). Never throws:
   * a failure is logged as a warning naming the key; the blob stays orphaned (see the class note).
   */
  async discardBlobs(keys: string[]): Promise<void> {
    for (let start = 0; start < keys.length; start += BLOB_REMOVAL_CONCURRENCY) {
      await Promise.all(
        keys.slice(start, start + BLOB_REMOVAL_CONCURRENCY).map(async (key) => {
          try {
            await this.storage.delete(key);
          } catch (error) {
            this.logger.warn(`Could not remove stored content ${key}; its file row is already deleted, so the blob is orphaned and may be removed by hand: ${(error as Error).message}`);
          }
        }),
      );
    }
  }

  /** The stored row. @throws NotFoundException (404) */
  private async find(id: string): Promise<StoredFileEntity> {
    const row = await this.dataSource.getRepository(StoredFileEntity).findOneBy({ id });
    if (!row) throw new NotFoundException(`No file ${id}.`);
    return row;
  }

  /**
   * Checks that a category exists; with `share`, also holds a FOR SHARE lock on it until the transaction ends, so
   * it cannot be deleted under a file being put into it.
   * @throws NotFoundException (404)
   */
  private async lockCategory(manager: EntityManager, categoryId: string, share: boolean): Promise<void> {
    const rows: unknown[] = await manager.query(`SELECT id FROM eval_file_category WHERE id = $1${share ? ' FOR SHARE' : ''}`, [categoryId]);
    if (rows.length === 0) throw new NotFoundException(`No file category ${categoryId}.`);
  }
}
