import {
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
  DeleteObjectCommand,
} from '@aws-sdk/client-s3';
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { Readable } from 'node:stream';
import { newStorageKey, assertStorageKey } from './storage-key';
import { writeCappedFile } from './capped-file-write';
import { BlobNotFoundError, BlobStorage, StoredBlob } from './storage.port';
import type { ObjectStorageSettings } from './storage.config';

/** Key prefix of evaluation (and later chat) blobs in the bucket. */
export const BLOB_PREFIX = 'blobs/';
/** Objects uploaded at once when a site folder is published. */
const UPLOAD_CONCURRENCY = 16;

/**
 * Builds the S3 client for `settings` (issue 20 item 4). Checksums are computed and validated only when an operation
 * requires them (ISSUE-NOTES 20): with the SDK's default (`WHEN_SUPPORTED`) non-AWS servers (s3rver, older MinIO)
 * reject its streamed uploads.
 */
export function createS3Client(settings: NonNullable<ObjectStorageSettings['s3']>): S3Client {
  return new S3Client({
    region: settings.region,
    endpoint: settings.endpoint,
    forcePathStyle: settings.forcePathStyle,
    credentials: settings.accessKeyId ? { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey! } : undefined,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

/** True for the "no such key" answers of GetObject/HeadObject (404 NoSuchKey / NotFound). */
export function isMissingObject(error: unknown): boolean {
  return error instanceof S3ServiceException && (error.$metadata?.httpStatusCode === 404 || error.name === 'NoSuchKey' || error.name === 'NotFound');
}

/** HTTP status of an S3 error (304 Not Modified, 412, 416 Range Not Satisfiable…), or undefined for a non-S3 error. */
export function s3Status(error: unknown): number | undefined {
  return error instanceof S3ServiceException ? error.$metadata?.httpStatusCode : undefined;
}

/** One object read for serving: the body stream and the headers S3 answered with. */
export interface ObjectRead {
  /** 200, or 206 for a range. */
  status: 200 | 206;
  body: Readable;
  contentType?: string;
  contentLength?: number;
  contentRange?: string;
  etag?: string;
  lastModified?: Date;
}

/**
 * The bucket as the app uses it: whole objects by key, prefixes listed and deleted, a local folder uploaded under a
 * prefix. Thin over the SDK; every key is the caller's (the sites and blob adapters build them).
 */
export class S3Bucket {
  constructor(
    readonly client: S3Client,
    readonly bucket: string,
  ) {}

  /**
   * Reads an object, passing the request's conditional and range headers through so S3 answers 304/206/416 itself.
   * @returns the body and headers
   * @throws an S3ServiceException: 404 (missing), 304 (not modified), 412, 416; see {@link s3Status}
   */
  async get(key: string, conditions: { range?: string; ifNoneMatch?: string; ifModifiedSince?: Date; ifRange?: string } = {}): Promise<ObjectRead> {
    const answer = await this.client.send(
      new GetObjectCommand({
        Bucket: this.bucket,
        Key: key,
        Range: conditions.range,
        IfNoneMatch: conditions.ifNoneMatch,
        IfModifiedSince: conditions.ifModifiedSince,
      }),
    );
    return {
      status: answer.$metadata.httpStatusCode === 206 ? 206 : 200,
      body: answer.Body as Readable,
      contentType: answer.ContentType,
      contentLength: answer.ContentLength,
      contentRange: answer.ContentRange,
      etag: answer.ETag,
      lastModified: answer.LastModified,
    };
  }

  /** @returns the object's size in bytes, or undefined when there is none */
  async head(key: string): Promise<{ size: number } | undefined> {
    try {
      const answer = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return { size: answer.ContentLength ?? 0 };
    } catch (error) {
      if (isMissingObject(error)) return undefined;
      throw error;
    }
  }

  /** Writes one object from a file (its length known, so no chunked upload is needed). */
  async putFile(key: string, path: string, size: number, contentType?: string): Promise<void> {
    await this.client.send(
      new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: createReadStream(path), ContentLength: size, ContentType: contentType }),
    );
  }

  /** Removes one object (S3 deletes are idempotent). */
  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  /** Every key under `prefix`. */
  async list(prefix: string): Promise<string[]> {
    return (await this.listDetailed(prefix)).map((item) => item.key);
  }

  /** Every object under `prefix` with its last change (epoch ms). */
  async listDetailed(prefix: string): Promise<{ key: string; modifiedMs: number }[]> {
    const items: { key: string; modifiedMs: number }[] = [];
    let token: string | undefined;
    do {
      const page = await this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ContinuationToken: token }));
      for (const item of page.Contents ?? []) if (item.Key) items.push({ key: item.Key, modifiedMs: item.LastModified?.getTime() ?? 0 });
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return items;
  }

  /**
   * The first path segment below `prefix` of every key under it (S3 "common prefixes"): the folders.
   * @returns names without `prefix` and without the trailing `/`
   */
  async folders(prefix: string): Promise<string[]> {
    const names: string[] = [];
    let token: string | undefined;
    do {
      const page = await this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, Delimiter: '/', ContinuationToken: token }));
      for (const item of page.CommonPrefixes ?? []) if (item.Prefix) names.push(item.Prefix.slice(prefix.length, -1));
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return names;
  }

  /** Removes every object under `prefix` (1000 per request). @returns how many keys were removed */
  async deletePrefix(prefix: string): Promise<number> {
    if (!prefix.endsWith('/')) throw new Error(`refusing to delete prefix "${prefix}" that is not a folder`);
    const keys = await this.list(prefix);
    for (let start = 0; start < keys.length; start += 1000) {
      const batch = keys.slice(start, start + 1000);
      await this.client.send(new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true } }));
    }
    return keys.length;
  }

  /**
   * Uploads every regular file of `folder` under `prefix` (`<prefix><relative/path>`); no content types are stored:
   * the serving side sets them by extension, as express.static does. Nothing under the prefix is visible to readers
   * before the caller commits its row, so a partial upload is harmless: the caller deletes the prefix when this throws.
   * @returns the number of objects written
   * @throws the first upload error
   */
  async uploadFolder(folder: string, prefix: string): Promise<number> {
    const files: { path: string }[] = [];
    const pending = [folder];
    while (pending.length > 0) {
      const current = pending.pop()!;
      for (const entry of await readdir(current, { withFileTypes: true })) {
        const path = join(current, entry.name);
        if (entry.isDirectory()) pending.push(path);
        else if (entry.isFile()) files.push({ path });
      }
    }
    let next = 0;
    const worker = async () => {
      while (next < files.length) {
        const file = files[next++];
        const size = (await stat(file.path)).size;
        const key = prefix + relative(folder, file.path).split(sep).join('/');
        await this.putFile(key, file.path, size);
      }
    };
    await Promise.all(Array.from({ length: Math.min(UPLOAD_CONCURRENCY, files.length) }, worker));
    return files.length;
  }
}

/**
 * The S3 adapter of the {@link BlobStorage} port (issue 20 item 4): blob `<ns>/<aa>/<bb>/<id>` is the object
 * `blobs/<ns>/<aa>/<bb>/<id>` of the bucket. A `put` streams into a local temp file first (hashing, counting and
 * refusing past `maxBytes`), then writes the object in one PutObject with its length: S3 writes are atomic, so a
 * reader sees the whole blob or none, and a refused or failed write leaves no object.
 */
export class S3BlobStorage implements BlobStorage {
  /**
   * @param bucket the bucket
   * @param tempDir local folder for uploads in progress (created on demand)
   */
  constructor(
    private readonly bucket: S3Bucket,
    private readonly tempDir: string,
  ) {}

  async put(source: Readable, options: { namespace: string; maxBytes?: number }): Promise<StoredBlob> {
    const key = newStorageKey(options.namespace);
    await mkdir(this.tempDir, { recursive: true });
    const temporary = join(this.tempDir, `${randomBytes(12).toString('hex')}.part`);
    let written: { size: number; sha256: string };
    try {
      written = await writeCappedFile(source, temporary, options.maxBytes ?? Number.POSITIVE_INFINITY, 0o600);
      await this.bucket.putFile(BLOB_PREFIX + key, temporary, written.size);
    } finally {
      await rm(temporary, { force: true });
    }
    return { key, ...written };
  }

  async open(key: string): Promise<{ stream: Readable; size: number }> {
    assertStorageKey(key);
    try {
      const read = await this.bucket.get(BLOB_PREFIX + key);
      return { stream: read.body, size: read.contentLength ?? 0 };
    } catch (error) {
      if (isMissingObject(error)) throw new BlobNotFoundError(key);
      throw error;
    }
  }

  async stat(key: string): Promise<{ size: number } | undefined> {
    assertStorageKey(key);
    return this.bucket.head(BLOB_PREFIX + key);
  }

  async delete(key: string): Promise<boolean> {
    assertStorageKey(key);
    const existed = (await this.bucket.head(BLOB_PREFIX + key)) !== undefined;
    if (existed) await this.bucket.delete(BLOB_PREFIX + key);
    return existed;
  }
}
