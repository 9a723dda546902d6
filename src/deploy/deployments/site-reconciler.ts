import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy, Optional } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Dirent } from 'node:fs';
import { lstat, mkdir, readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { parseTrashName, STAGING_DIR, withdrawPublishedSite } from './site-publisher';
import { leftoverVerdict, orphanFolders, SITE_TRY_LOCK_SQL } from './site-reconciler.rules';
import { OBJECT_BUCKET } from '../../common/storage/storage.module';
import type { S3Bucket } from '../../common/storage/s3.storage';
import { siteObjectPrefix, SITES_PREFIX } from '../sites/s3-site-serving';

/** What one pass did (counts), for logs and tests. */
export interface SiteSweepReport {
  /** Staging folders of interrupted deploys removed. */
  staging: number;
  /** Withdrawn sites (interrupted or finished deletes) removed for good. */
  trash: number;
  /** Withdrawn sites put back because their delete never committed. */
  restored: number;
  /** Temporary uploads removed. */
  uploads: number;
  /** Published folders without a deployment row removed. */
  orphans: number;
}

/**
 * The gateway's crash-leftover sweep (issue 19 item 5: "a start-up sweep removes staging and upload leftovers and
 * reconciles published site folders with their rows: an orphan folder is removed and logged"). It runs once at
 * application bootstrap (before the server listens) and then every DEPLOY_LEFTOVER_SWEEP_INTERVAL_MS:
 * - `<sites>/.staging/<random>` (an interrupted unpack) and `DATA_DIR/tmp/uploads/*` (multer's files of interrupted
 *   requests, all three wings) are removed once nothing in them changed for DEPLOY_LEFTOVER_GRACE_MS. Several
 *   instances may share these folders (a shared mount), and an upload or unpack in progress keeps changing its files,
 *   so the grace period is what keeps one instance off another's work. With the embedded database only one Atrium can
 *   use a DATA_DIR (PostgreSQL's postmaster.pid), so the start-up pass uses no grace and leaves nothing behind;
 * - `<sites>/.staging/removed~<ns>~<dir>~<random>` (a site withdrawn by a delete): removed when its row is gone (the
 *   delete committed), put back in place when its row is still there and not locked (the delete never committed),
 *   left alone while a delete holds the row;
 * - `<sites>/<namespace>/<dir>` with no deployment row (a kill between the rename and the commit of a publish) is
 *   withdrawn and removed, with a warning. Publish holds the site's advisory lock from before its rename until its
 *   commit (DeploymentsService.publish), and the sweep takes the same lock without waiting and re-reads the row
 *   under it, so a publish in progress on another instance is never mistaken for an orphan.
 * Failures are logged, never thrown: a sweep never stops the app from starting.
 */
@Injectable()
export class SiteReconciler implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(SiteReconciler.name);
  private timer?: NodeJS.Timeout;
  private running?: Promise<unknown>;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Optional() @Inject(OBJECT_BUCKET) private readonly bucket: S3Bucket | null = null,
  ) {}

  /** Runs the start-up pass (awaited, so it is done before requests arrive), then one every interval. */
  async onApplicationBootstrap(): Promise<void> {
    await this.tick(true);
    this.timer = setInterval(() => void this.tick(false), this.config.siteReconciler.sweepIntervalMs);
    this.timer.unref();
  }

  /** Stops sweeping and waits for a pass in progress. */
  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  private async tick(startup: boolean): Promise<void> {
    if (this.running) return;
    this.running = this.sweep(startup)
      .then((report) => {
        const total = report.staging + report.trash + report.restored + report.uploads + report.orphans;
        if (total > 0) this.logger.warn(`Leftover sweep${startup ? ' at start-up' : ''}: ${JSON.stringify(report)}`);
      })
      .catch((error: Error) => this.logger.error(`Leftover sweep failed: ${error.message}`, error.stack))
      .finally(() => (this.running = undefined));
    await this.running;
  }

  /**
   * One pass over the staging folder, the upload folder and the published folders.
   * @param startup the start-up pass (no grace period with the embedded database)
   * @returns what was removed or restored
   * @throws a database or filesystem error that stopped the pass (entries already handled stay handled)
   */
  async sweep(startup = false): Promise<SiteSweepReport> {
    const report: SiteSweepReport = { staging: 0, trash: 0, restored: 0, uploads: 0, orphans: 0 };
    const graceMs = startup && !this.config.databaseUrl ? 0 : this.config.siteReconciler.graceMs;
    const { sitesDir } = this.config.deploy;
    const now = Date.now();

    for (const entry of await entries(join(sitesDir, STAGING_DIR))) {
      const path = join(sitesDir, STAGING_DIR, entry.name);
      const trash = parseTrashName(entry.name);
      if (trash) {
        const outcome = await this.settleTrash(path, trash.namespace, trash.directoryName);
        if (outcome === 'removed') report.trash++;
        if (outcome === 'restored') report.restored++;
      } else if (graceMs <= 0 || leftoverVerdict(await newestChange(path, now - graceMs), now, graceMs) === 'remove') {
        await rm(path, { recursive: true, force: true, maxRetries: 3 });
        report.staging++;
      }
    }

    // Multer's folder of every wing (deploy.module.ts uploadTempDir, chat messages, evaluation files).
    const uploads = join(this.config.dataDir, 'tmp', 'uploads');
    for (const entry of await entries(uploads)) {
      const path = join(uploads, entry.name);
      if (graceMs <= 0 || leftoverVerdict(await newestChange(path, now - graceMs), now, graceMs) === 'remove') {
        await rm(path, { recursive: true, force: true, maxRetries: 3 });
        report.uploads++;
      }
    }

    for (const namespace of await entries(sitesDir)) {
      if (!namespace.isDirectory() || namespace.name === STAGING_DIR) continue;
      const folders = (await entries(join(sitesDir, namespace.name))).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
      if (folders.length === 0) continue;
      const rows = (await this.dataSource.query(`SELECT directory_name FROM deploy_deployment WHERE namespace = $1`, [namespace.name])) as { directory_name: string }[];
      for (const directoryName of orphanFolders(folders, new Set(rows.map((row) => row.directory_name)))) {
        if (await this.removeOrphan(namespace.name, directoryName)) report.orphans++;
      }
    }
    if (this.bucket) report.orphans += await this.sweepBucket(this.bucket, now, this.config.siteReconciler.graceMs);
    return report;
  }

  /**
   * STORAGE_DRIVER=s3 (issue 20 item 4): a deploy's prefix `sites/<ns>/<dir>/` without a deployment row (a publish
   * killed between its upload and its commit, or a delete killed before removing the objects) is deleted once its
   * newest object is older than DEPLOY_LEFTOVER_GRACE_MS (an upload in progress on any instance keeps adding objects)
   * and, under the site's advisory lock, its row is still absent. Such objects are never served (serving reads the row).
   * @returns prefixes removed
   */
  private async sweepBucket(bucket: S3Bucket, now: number, graceMs: number): Promise<number> {
    let removed = 0;
    // One listing of every site object, grouped by namespace and deploy, with each deploy's newest change.
    const newestByDeploy = new Map<string, Map<string, number>>();
    for (const item of await bucket.listDetailed(SITES_PREFIX)) {
      const [namespace, directoryName] = item.key.slice(SITES_PREFIX.length).split('/');
      if (!namespace || !directoryName) continue;
      const deploys = newestByDeploy.get(namespace) ?? new Map<string, number>();
      deploys.set(directoryName, Math.max(deploys.get(directoryName) ?? 0, item.modifiedMs));
      newestByDeploy.set(namespace, deploys);
    }
    for (const [namespace, deploys] of newestByDeploy) {
      const rows = (await this.dataSource.query(`SELECT directory_name FROM deploy_deployment WHERE namespace = $1`, [namespace])) as { directory_name: string }[];
      for (const directoryName of orphanFolders([...deploys.keys()], new Set(rows.map((row) => row.directory_name)))) {
        const prefix = siteObjectPrefix(namespace, directoryName);
        if (leftoverVerdict(deploys.get(directoryName)!, now, graceMs) !== 'remove') continue;
        const orphan = await this.dataSource.transaction(async (manager) => {
          const [{ locked }] = (await manager.query(SITE_TRY_LOCK_SQL, [directoryName])) as [{ locked: boolean }];
          if (!locked) return false;
          return ((await manager.query(`SELECT 1 FROM deploy_deployment WHERE directory_name = $1`, [directoryName])) as unknown[]).length === 0;
        });
        if (!orphan) continue;
        await bucket.deletePrefix(prefix);
        this.logger.warn(`Removed orphan site objects ${prefix}: no deployment row names them (a publish or delete was interrupted).`);
        removed++;
      }
    }
    return removed;
  }

  /** A withdrawn site: removed, restored, or left to the delete that holds its row. */
  private async settleTrash(path: string, namespace: string, directoryName: string): Promise<'removed' | 'restored' | 'held'> {
    const verdict = await this.dataSource.transaction(async (manager) => {
      const free = (await manager.query(`SELECT id FROM deploy_deployment WHERE directory_name = $1 FOR UPDATE SKIP LOCKED`, [directoryName])) as unknown[];
      if (free.length > 0) {
        // The row is there and nobody is deleting it: that delete rolled back or was killed before its commit.
        const target = join(this.config.deploy.sitesDir, namespace, directoryName);
        if (await lstat(target).then(() => true, () => false)) return 'remove' as const;
        await mkdir(join(this.config.deploy.sitesDir, namespace), { recursive: true });
        await rename(path, target);
        this.logger.warn(`Put back site ${namespace}/${directoryName}: its delete never committed, and its deployment row still exists.`);
        return 'restored' as const;
      }
      const held = (await manager.query(`SELECT 1 FROM deploy_deployment WHERE directory_name = $1`, [directoryName])) as unknown[];
      return held.length > 0 ? ('held' as const) : ('remove' as const);
    });
    if (verdict !== 'remove') return verdict;
    await rm(path, { recursive: true, force: true, maxRetries: 3 });
    return 'removed';
  }

  /** Withdraws and removes a published folder without a row, unless a publish holds its lock or its row appeared. */
  private async removeOrphan(namespace: string, directoryName: string): Promise<boolean> {
    const withdrawn = await this.dataSource.transaction(async (manager) => {
      const [{ locked }] = (await manager.query(SITE_TRY_LOCK_SQL, [directoryName])) as [{ locked: boolean }];
      if (!locked) return undefined;
      const rows = (await manager.query(`SELECT 1 FROM deploy_deployment WHERE directory_name = $1`, [directoryName])) as unknown[];
      if (rows.length > 0) return undefined;
      return withdrawPublishedSite({ sitesRoot: this.config.deploy.sitesDir, namespace, directoryName });
    });
    if (!withdrawn) return false;
    await rm(withdrawn, { recursive: true, force: true, maxRetries: 3 });
    this.logger.warn(`Removed orphan site folder ${namespace}/${directoryName}: no deployment row names it (a publish was interrupted before its commit).`);
    return true;
  }
}

/** The entries of a folder; none when it does not exist. */
async function entries(path: string): Promise<Dirent[]> {
  try {
    return await readdir(path, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

/**
 * The latest change (mtime or ctime, epoch ms) in `path` and below. The walk stops as soon as it finds a change
 * newer than `enoughMs` (the entry is young: kept either way). A vanished entry counts as old.
 */
async function newestChange(path: string, enoughMs: number): Promise<number> {
  let newest = 0;
  const pending = [path];
  while (pending.length > 0) {
    const current = pending.pop()!;
    const stats = await lstat(current).catch(() => undefined);
    if (!stats) continue;
    newest = Math.max(newest, stats.mtimeMs, stats.ctimeMs);
    if (newest > enoughMs) return newest;
    if (stats.isDirectory()) for (const child of await entries(current)) pending.push(join(current, child.name));
  }
  return newest;
}
