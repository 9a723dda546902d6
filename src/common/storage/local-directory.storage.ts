import { Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { newStorageKey, resolveStorageKey } from './storage-key';
import { writeCappedFile } from './capped-file-write';
import { BlobNotFoundError, BlobStorage, StoredBlob } from './storage.port';

/** Folder under the root for writes in progress; keys cannot start with `.`, so it never clashes with a key. */
const TEMP_FOLDER = '.tmp';

/** Leftover temp files (a process killed mid-write) older than this are removed at start-up, ms. */
export const STALE_TEMP_AGE_MS = 24 * 60 * 60 * 1000;

/**
 * The local-directory adapter of the {@link BlobStorage} port: blob `<ns>/<aa>/<bb>/<id>` is the file
 * `<root>/<ns>/<aa>/<bb>/<id>` (mode 0640). A write streams into `<root>/.tmp/<random>.part` (same file system
 * as the target), is flushed to disk (fsync), then renamed into place in one step, so a reader sees the whole blob
 * or nothing; on any failure the temp file is removed. Empty shard folders are left in place (removing them would
 * race with concurrent writes into the same shard).
 */
export class LocalDirectoryStorage implements BlobStorage {
  private readonly logger = new Logger(LocalDirectoryStorage.name);
  readonly root: string;

  /** @param root folder of the blobs; created by {@link init} */
  constructor(root: string) {
    this.root = resolve(root);
  }

  /**
   * Creates the root and its temp folder, and removes temp files older than {@link STALE_TEMP_AGE_MS} (left by a
   * process that died mid-write; younger ones may belong to another instance sharing the folder).
   */
  async init(now = Date.now()): Promise<void> {
    const temp = join(this.root, TEMP_FOLDER);
    await mkdir(temp, { recursive: true });
    for (const name of await readdir(temp)) {
      const path = join(temp, name);
      try {
        if (now - (await stat(path)).mtimeMs > STALE_TEMP_AGE_MS) await rm(path, { force: true });
      } catch (error) {
        this.logger.warn(`Could not remove stale temp file ${path}: ${(error as Error).message}`);
      }
    }
  }

  async put(source: Readable, options: { namespace: string; maxBytes?: number }): Promise<StoredBlob> {
    const key = newStorageKey(options.namespace);
    const target = resolveStorageKey(this.root, key);
    const temporary = join(this.root, TEMP_FOLDER, `${randomBytes(12).toString('hex')}.part`);
    let written: { size: number; sha256: string };
    try {
      written = await writeCappedFile(source, temporary, options.maxBytes ?? Number.POSITIVE_INFINITY, 0o640);
      const handle = await open(temporary, 'r+');
      try {
        await handle.sync();
      } finally {
        await handle.close();
      }
      await mkdir(dirname(target), { recursive: true });
      await rename(temporary, target);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
    return { key, ...written };
  }

  async open(key: string): Promise<{ stream: Readable; size: number }> {
    const path = resolveStorageKey(this.root, key);
    let handle;
    try {
      handle = await open(path, 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new BlobNotFoundError(key);
      throw error;
    }
    try {
      const { size } = await handle.stat();
      return { stream: handle.createReadStream({ autoClose: true }), size };
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  async stat(key: string): Promise<{ size: number } | undefined> {
    try {
      return { size: (await stat(resolveStorageKey(this.root, key))).size };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  async delete(key: string): Promise<boolean> {
    try {
      await rm(resolveStorageKey(this.root, key));
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw error;
    }
  }
}
