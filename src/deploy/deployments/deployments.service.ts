import { BadRequestException, ConflictException, ForbiddenException, Inject, Injectable, Logger, NotFoundException, PayloadTooLargeException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { rm } from 'node:fs/promises';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { Page, toOrder, toPage } from '../../common/paging/page';
import { AuditCaller, AuditService } from '../audit/audit.service';
import type { DeployAgentPrincipal } from '../auth/deploy-principal';
import { DeploymentEntity } from './deployment.entity';
import { DEPLOYMENT_SORT_FIELDS, DeployResultDto, DeploymentDto, type DeploymentQueryDto, DeploySiteDto, toDeploymentDto } from './deployments.dto';
import { buildSiteDirectoryName, discardStagedSite, discardUnpackedSite, promoteStagedSite, stagedAs, withdrawPublishedSite } from './site-publisher';
import type { StreamedArchive } from './site-archive.storage';
import { archiveTooLargeDetail } from './site-archive-upload.rules';
import { SITE_LOCK_SQL } from './site-reconciler.rules';
import { sitesBaseUrl } from '../sites/sites.config';
import { OBJECT_BUCKET } from '../../common/storage/storage.module';
import type { S3Bucket } from '../../common/storage/s3.storage';
import { siteObjectPrefix } from '../sites/s3-site-serving';
import { ListPager } from '../../common/paging/list-pager';

/** Publishes, lists and deletes static sites (deployment-gateway.md, States: Deployment). */
@Injectable()
export class DeploymentsService {
  private readonly logger = new Logger(DeploymentsService.name);

  constructor(
    private readonly pager: ListPager,
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly audit: AuditService,
    @Inject(OBJECT_BUCKET) private readonly bucket: S3Bucket | null,
  ) {}

  /**
   * Publishes an archive that was unpacked into a staging directory while it arrived (SiteArchiveStorage, issue 14
   * item 2): names it, then, in one transaction holding the site's advisory lock,
   * writes the deployment row and its audit row and moves the site into place; the commit follows the rename. A kill
   * between the rename and the commit leaves a served folder without a row, which the start-up reconciler
   * (SiteReconciler) removes: the lock keeps it off a site whose row is still about to commit (issue 19 item 5).
   * With STORAGE_DRIVER=s3 the unpacked files are uploaded under the deploy's own prefix (`sites/<ns>/<dir>/`) before
   * the transaction, and nothing is renamed: serving reads the row, so the site appears when the row commits; the
   * prefix is deleted when anything fails (issue 20 item 4).
   * @throws ForbiddenException (403) `contactId` is not the token's namespace
   * `elapsedSeconds` counts from the archive's first byte reaching the server to the commit.
   * @throws ForbiddenException (403) `contactId` is not the token's namespace
   * @throws PayloadTooLargeException (413) archive over DEPLOY_MAX_ARCHIVE_BYTES
   * @throws BadRequestException (400) hostile, corrupt or empty archive (nothing is left on disk)
   */
  async publish(archive: StreamedArchive, input: DeploySiteDto, agent: DeployAgentPrincipal, caller: AuditCaller): Promise<DeployResultDto> {
    const started = archive.startedAt;
    const unpacked = archive.site;
    try {
      if (input.contactId !== agent.namespace) {
        throw new ForbiddenException(`The token may publish only in its own namespace "${agent.namespace}".`);
      }
      if (archive.size > this.config.deploy.maxArchiveBytes) throw new PayloadTooLargeException(archiveTooLargeDetail(this.config.deploy.maxArchiveBytes));
      if (archive.rejection) throw new BadRequestException(`Archive rejected: ${archive.rejection.message}`);
      if (!unpacked) throw new Error('the archive was neither unpacked nor refused');
    } catch (error) {
      if (unpacked) await discardUnpackedSite(unpacked);
      throw error;
    }
    const directoryName = buildSiteDirectoryName(input.projectName, new Date());
    let staged;
    try {
      staged = await stagedAs(unpacked, agent.namespace, directoryName);
    } catch (error) {
      await discardUnpackedSite(unpacked);
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw new ConflictException('A site with this directory name exists; deploy again.');
      throw error;
    }
    const site = staged;
    // STORAGE_DRIVER=s3: the files go under the deploy's own prefix first; they are served once the row commits.
    const prefix = siteObjectPrefix(agent.namespace, directoryName);
    if (this.bucket) {
      try {
        await this.bucket.uploadFolder(staged.staging, prefix);
      } catch (error) {
        await discardStagedSite(staged);
        await this.bucket.deletePrefix(prefix).catch((cleanup: Error) => this.logger.warn(`Could not remove ${prefix}: ${cleanup.message}`));
        throw error;
      }
    }
    try {
      const deployment = await this.dataSource.transaction(async (manager) => {
        await manager.query(SITE_LOCK_SQL, [directoryName]);
        const row = manager.create(DeploymentEntity, {
          namespace: agent.namespace,
          projectName: input.projectName,
          directoryName,
          fileCount: site.fileCount,
          bytes: site.bytes,
          tokenPrefix: agent.tokenPrefix,
          agentId: agent.agentId,
        });
        await manager.save(row);
        await this.audit.record(caller, { action: 'deploy', outcome: 'allowed', status: 201, target: `${row.id} ${directoryName}` }, manager);
        if (!this.bucket) await promoteStagedSite(staged);
        return row;
      });
      if (this.bucket) await discardStagedSite(staged);
      const elapsedSeconds = Math.round(performance.now() - started) / 1000;
      return { ...toDeploymentDto(deployment, sitesBaseUrl(this.config)), elapsedSeconds };
    } catch (error) {
      await discardStagedSite(staged);
      if (this.bucket) await this.bucket.deletePrefix(prefix).catch((cleanup: Error) => this.logger.warn(`Could not remove ${prefix}: ${cleanup.message}`));
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw new ConflictException('A site with this directory name exists; deploy again.');
      throw error;
    }
  }

  /** The namespace's deployments, newest first by default; sortable by `deployedAt`, `projectName`, `bytes`. */
  async list(agent: DeployAgentPrincipal, query: DeploymentQueryDto): Promise<Page<DeploymentDto>> {
    const order = toOrder(query.sort, DEPLOYMENT_SORT_FIELDS, { createdAt: 'DESC' });
    const { rows, ...slice } = await this.pager.find(this.dataSource.getRepository(DeploymentEntity), {
      where: { namespace: agent.namespace },
      order,
    }, query);
    return toPage(
      rows.map((row) => toDeploymentDto(row, sitesBaseUrl(this.config))),
      slice,
      query,
    );
  }

  /**
   * Deletes a deployment of the caller's namespace and its files: the row is deleted, the audit row written and
   * the site taken off the web (one rename) in one transaction; the files are removed after it commits.
   * @throws NotFoundException (404) no such deployment in the caller's namespace
   */
  async remove(id: string, agent: DeployAgentPrincipal, caller: AuditCaller): Promise<void> {
    const withdrawn = await this.dataSource.transaction(async (manager) => {
      const deployment = await manager.findOne(DeploymentEntity, { where: { id, namespace: agent.namespace }, lock: { mode: 'pessimistic_write' } });
      if (!deployment) throw new NotFoundException(`No deployment ${id} in namespace ${agent.namespace}.`);
      await manager.delete(DeploymentEntity, { id });
      await this.audit.record(caller, { action: 'delete', outcome: 'allowed', status: 204, target: `${id} ${deployment.directoryName}` }, manager);
      if (this.bucket) return siteObjectPrefix(deployment.namespace, deployment.directoryName);
      return withdrawPublishedSite({ sitesRoot: this.config.deploy.sitesDir, namespace: deployment.namespace, directoryName: deployment.directoryName });
    });
    // On S3 the row's delete already hid the site (serving reads the row); its objects go after the commit.
    if (this.bucket && withdrawn) {
      await this.bucket.deletePrefix(withdrawn).catch((error: Error) => this.logger.warn(`Could not remove ${withdrawn}: ${error.message}`));
      return;
    }
    if (withdrawn) await rm(withdrawn, { recursive: true, force: true }).catch((error: Error) => this.logger.warn(`Could not remove ${withdrawn}: ${error.message}`));
  }
}
