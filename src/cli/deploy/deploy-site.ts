import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { DeployApiClient, DeployResult, ProgressListener } from './deploy-api.client';
import { type PackResult, packSiteDirectory } from './site-packer';

/** Result of {@link deploySiteDirectory}: the server's answer, the local pack stats and the client-side wall time. */
export interface DeploySiteResult {
  deployment: DeployResult;
  pack: PackResult;
  /** Seconds from start of packing to the server's answer, measured by the client. */
  elapsedSeconds: number;
}

/**
 * Packs `dir` into a temporary .tar.gz, uploads it with {@link DeployApiClient.deploy} and always deletes the temp
 * file afterwards (deployment-gateway.md, Client scripts: "deploy (project directory, project name, namespace)").
 * @param client gateway client (registers automatically when it has no token)
 * @param dir project directory to publish
 * @param options project name, namespace (`contactId`) and optional upload progress listener
 * @throws Error from packing (missing directory) or DeployApiError from the upload
 */
export async function deploySiteDirectory(
  client: DeployApiClient,
  dir: string,
  options: { projectName: string; contactId: string; onProgress?: ProgressListener },
): Promise<DeploySiteResult> {
  const started = process.hrtime.bigint();
  const tmpDir = await fs.mkdtemp(path.join(os.tmpdir(), 'atrium-deploy-'));
  try {
    const pack = await packSiteDirectory(dir, path.join(tmpDir, 'site.tar.gz'));
    const deployment = await client.deploy(pack.file, options);
    const elapsedSeconds = Number(process.hrtime.bigint() - started) / 1e9;
    return { deployment, pack, elapsedSeconds };
  } finally {
    await fs.rm(tmpDir, { recursive: true, force: true });
  }
}
