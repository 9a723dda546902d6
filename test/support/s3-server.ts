import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The bits of s3rver 3 (no type declarations of its own) the tests use. */
interface S3rverInstance {
  run(): Promise<{ port: number }>;
  close(): Promise<void>;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const S3rver = require('s3rver') as new (options: Record<string, unknown>) => S3rverInstance;

/** A running S3 REST server on 127.0.0.1 and the settings the app needs to use it (STORAGE_DRIVER=s3). */
export interface LocalS3 {
  endpoint: string;
  bucket: string;
  /** Environment variables pointing the app at it. */
  env: Record<string, string>;
  stop(): Promise<void>;
}

/**
 * Starts `s3rver` (a real S3 REST server keeping objects in a temp folder; ISSUE-NOTES 20: MinIO can't be installed
 * here) on a free port of 127.0.0.1 with one bucket. s3rver accepts the fixed key pair `S3RVER`/`S3RVER`.
 * @param bucket name of the bucket to create
 */
export async function startLocalS3(bucket = 'atrium'): Promise<LocalS3> {
  const directory = await mkdtemp(join(tmpdir(), 'atrium-s3rver-'));
  const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory, configureBuckets: [{ name: bucket }] });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    bucket,
    env: {
      STORAGE_DRIVER: 's3',
      S3_ENDPOINT: endpoint,
      S3_BUCKET: bucket,
      S3_REGION: 'us-east-1',
      S3_ACCESS_KEY_ID: 'S3RVER',
      S3_SECRET_ACCESS_KEY: 'S3RVER',
      S3_FORCE_PATH_STYLE: 'true',
    },
    async stop() {
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
