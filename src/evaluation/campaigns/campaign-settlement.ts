import type { EntityManager } from 'typeorm';
import { LIVE_RUN_STATUSES } from '../runs/run.entity';

/**
 * Completes a running campaign once none of its runs is live (issue 4, Campaigns: "the campaign completes when
 * its runs are terminal"). Call it inside the transaction that ended a run, after the run's status change.
 *
 * It locks the campaign row (`SELECT … FOR UPDATE`), so run endings of one campaign settle one after another: when
 * two runs end at the same time, the second waits for the first's commit and then (READ COMMITTED: each statement
 * sees what was committed before it started) sees the first run terminal, so the last run to end always completes
 * the campaign and no campaign stays `running` with only terminal runs. It never locks run rows while holding the
 * campaign lock, so it cannot deadlock with a run ending or a campaign cancel.
 *
 * @param manager the caller's transaction (must be inside one, or the lock is released at once)
 * @param campaignId the campaign of the run that ended
 * @returns true when this call moved the campaign running → completed (with `finished_at`)
 */
export async function settleCampaign(manager: EntityManager, campaignId: string): Promise<boolean> {
  const locked: { status: string }[] = await manager.query('SELECT status FROM eval_campaign WHERE id = $1 FOR UPDATE', [campaignId]);
  if (locked[0]?.status !== 'running') return false;
  const live: unknown[] = await manager.query('SELECT 1 FROM eval_run WHERE campaign_id = $1 AND status = ANY($2::varchar[]) LIMIT 1', [campaignId, LIVE_RUN_STATUSES]);
  if (live.length > 0) return false;
  await manager.query(`UPDATE eval_campaign SET status = 'completed', finished_at = now() WHERE id = $1`, [campaignId]);
  return true;
}

/**
 * {@link settleCampaign} for the campaign of run `runId`, if it has one; what the run-ending paths call
 * (RunExecutor.finish, RunsService.cancel) inside the transaction that ended the run.
 * @returns true when the run's campaign was completed by this call
 */
export async function settleCampaignOfRun(manager: EntityManager, runId: string): Promise<boolean> {
  const rows: { campaign_id: string | null }[] = await manager.query('SELECT campaign_id FROM eval_run WHERE id = $1', [runId]);
  const campaignId = rows[0]?.campaign_id;
  return campaignId ? settleCampaign(manager, campaignId) : false;
}
