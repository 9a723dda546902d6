import { statfs } from 'node:fs/promises';

/**
 * Free bytes on the file system holding `path`, as an unprivileged process may use them (`bavail` × block size).
 * @throws the statfs error (the path is missing, …)
 */
export async function freeBytesAt(path: string): Promise<number> {
  const stats = await statfs(path);
  return stats.bavail * stats.bsize;
}

/**
 * The disk verdict of the readiness probe. Pure.
 * @param freeBytes free space, bytes
 * @param minFreeBytes HEALTH_MIN_FREE_DISK_BYTES
 */
export function diskVerdict(freeBytes: number, minFreeBytes: number): { up: boolean; details: { freeBytes: number; minFreeBytes: number } } {
  return { up: freeBytes >= minFreeBytes, details: { freeBytes, minFreeBytes } };
}
