import type { Readable } from 'node:stream';

/**
 * The file storage port (DESIGN.md, External peers: file storage). Wing-neutral: evaluation files use it now, chat
 * message attachments later. Blobs are opaque byte sequences addressed by keys that the port generates (see
 * storage-key.ts); names, content types and owners live in the caller's database rows, never in the storage.
 *
 * The default adapter keeps blobs in a local folder ({@link LocalDirectoryStorage}); an object-store adapter
 * implements the same interface and is bound to {@link BLOB_STORAGE} instead.
 *
 * Contract every adapter keeps:
 * - `put` is atomic: a reader never sees a partial blob, and a failed or refused write leaves nothing behind.
 * - Keys are never reused (128 random bits), so a blob is immutable once written.
 * - `delete` is idempotent.
 * - Every method validates the key first and throws {@link InvalidStorageKeyError} for one it did not generate.
 */
export interface BlobStorage {
  /**
   * Streams `source` into a new blob, hashing and counting it on the way.
   * @param options.namespace first key segment, e.g. `evaluation-files` (1..40 of `[a-z0-9-]`)
   * @param options.maxBytes refuse (and store nothing) past this many bytes
   * @returns the new key, the size in bytes and the SHA-256 (hex) of the content
   * @throws BlobTooLargeError over `maxBytes`; the source's or the medium's error otherwise (nothing stored)
   */
  put(source: Readable, options: { namespace: string; maxBytes?: number }): Promise<StoredBlob>;

  /**
   * Opens a blob for reading.
   * @returns a stream of its bytes and its size in bytes
   * @throws BlobNotFoundError no blob has this key
   */
  open(key: string): Promise<{ stream: Readable; size: number }>;

  /** @returns the blob's size in bytes, or undefined when there is none with this key */
  stat(key: string): Promise<{ size: number } | undefined>;

  /** Removes a blob. @returns false when there was none with this key (not an error) */
  delete(key: string): Promise<boolean>;
}

/** What {@link BlobStorage.put} stored. */
export interface StoredBlob {
  key: string;
  /** Bytes. */
  size: number;
  /** SHA-256 of the content, lowercase hex. */
  sha256: string;
}

/** Injection token of the {@link BlobStorage} in use. */
export const BLOB_STORAGE = Symbol('BLOB_STORAGE');

/** No blob has the key. */
export class BlobNotFoundError extends Error {
  override readonly name = 'BlobNotFoundError';
  constructor(readonly key: string) {
    super(`No stored blob ${key}.`);
  }
}

/** A `put` went past its `maxBytes`; nothing was stored. */
export class BlobTooLargeError extends Error {
  override readonly name = 'BlobTooLargeError';
  constructor(readonly maxBytes: number) {
    super(`The content is over ${maxBytes} bytes.`);
  }
}

export { InvalidStorageKeyError } from './storage-key';
