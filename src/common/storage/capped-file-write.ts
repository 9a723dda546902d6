import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { BlobTooLargeError } from './storage.port';

/**
 * Streams `source` into a new file at `path` (created exclusively, never following a link planted there), counting
 * and hashing on the way: the one write path of both storage adapters (local, and S3's temporary copy).
 * @param maxBytes refuse past this many bytes (`Infinity`: no cap)
 * @param mode file mode of the new file
 * @returns bytes written and their SHA-256 (hex)
 * @throws BlobTooLargeError past `maxBytes` (the partial file stays; the caller removes it)
 * The file is opened before the first byte is read: a stream that opened it lazily could create it after a refusal
 * had already been answered and the caller's cleanup had run, leaving a partial file behind.
 */
export async function writeCappedFile(source: Readable, path: string, maxBytes: number, mode: number): Promise<{ size: number; sha256: string }> {
  const hash = createHash('sha256');
  let size = 0;
  const handle = await open(path, 'wx', mode);
  await pipeline(
    source,
    new Transform({
      transform(chunk: Buffer, _encoding, done) {
        size += chunk.length;
        if (size > maxBytes) return done(new BlobTooLargeError(maxBytes));
        hash.update(chunk);
        done(null, chunk);
      },
    }),
    handle.createWriteStream(),
  );
  return { size, sha256: hash.digest('hex') };
}
