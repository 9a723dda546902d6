import { BadRequestException } from '@nestjs/common';
import type { BudgetOverride } from './exploration-budget';
import { CampaignStatus } from './campaign.entity';

/** A campaign's exploration seed set after normalisation: both lists, or both null (opted out, rule 3). */
export interface NormalisedSeeds {
  seedPersonas: string[] | null;
  seedGoals: string[] | null;
}

/** Trims entries, drops blank and repeated ones (first occurrence kept); undefined/null stays empty. */
function cleanList(list: readonly string[] | null | undefined): string[] {
  const seen = new Set<string>();
  for (const item of list ?? []) {
    const trimmed = item.trim();
    if (trimmed) seen.add(trimmed);
  }
  return [...seen];
}

/**
 * Normalises a campaign's exploration seed set (evaluation-platform.md rule 3; issue 4, Campaigns). The seed set
 * is seed personas × seed goals, so it needs both lists or neither:
 * - both empty or missing → both null: the campaign has opted out of exploration;
 * - both non-empty → the lists trimmed, without blank or repeated entries, order kept;
 * - one non-empty and the other empty or missing → 400 naming the empty list.
 * @param maxSeeds most entries per list after cleaning (EVAL_CAMPAIGN_MAX_SEEDS)
 * @throws BadRequestException (400) one list empty while the other is not, or a list too long
 */
export function normaliseSeeds(personas: readonly string[] | null | undefined, goals: readonly string[] | null | undefined, maxSeeds: number): NormalisedSeeds {
  const seedPersonas = cleanList(personas);
  const seedGoals = cleanList(goals);
  if (seedPersonas.length === 0 && seedGoals.length === 0) return { seedPersonas: null, seedGoals: null };
  if (seedPersonas.length === 0 || seedGoals.length === 0) {
    const [empty, full, count] = seedPersonas.length === 0 ? ['seed_personas', 'seed_goals', seedGoals.length] : ['seed_goals', 'seed_personas', seedPersonas.length];
    throw new BadRequestException(
      `The exploration seed set is seed personas × seed goals, but ${empty} is empty while ${full} has ${count} entr${count === 1 ? 'y' : 'ies'}. ` +
        'Send both lists, or leave both empty to opt the campaign out of exploration.',
    );
  }
  for (const [field, list] of [['seed_personas', seedPersonas], ['seed_goals', seedGoals]] as const) {
    if (list.length > maxSeeds) throw new BadRequestException(`${field} has ${list.length} entries; at most ${maxSeeds} are allowed (EVAL_CAMPAIGN_MAX_SEEDS).`);
  }
  return { seedPersonas, seedGoals };
}

/**
 * Checks a campaign's service-cycle window: the end must come strictly after the start.
 * @throws BadRequestException (400) with both instants in the reason
 */
export function assertWindow(start: Date, end: Date): void {
  if (!(end.getTime() > start.getTime())) {
    throw new BadRequestException(`window_end (${end.toISOString()}) must be after window_start (${start.toISOString()}).`);
  }
}

/**
 * A budget override as stored: only the fields that are set (numbers), or null when none is (null = the platform
 * defaults, rule 4).
 */
export function normaliseBudgetOverride(override: BudgetOverride | null | undefined): BudgetOverride | null {
  if (!override) return null;
  const kept: BudgetOverride = {};
  for (const key of ['sessionsPerWindow', 'turnsPerSession', 'minSessionIntervalMs'] as const) {
    const value = override[key];
    if (typeof value === 'number') kept[key] = value;
  }
  return Object.keys(kept).length ? kept : null;
}

/** Campaign moves a request can ask for (completion is the system's move, when every run is terminal). */
export type CampaignMove = 'start' | 'cancel';

/** The state machine of a campaign: which statuses each requested move leaves from, and where it goes. */
const MOVES: Record<CampaignMove, { from: CampaignStatus[]; to: CampaignStatus }> = {
  start: { from: ['draft'], to: 'running' },
  cancel: { from: ['draft', 'running'], to: 'cancelled' },
};

/**
 * Why a campaign in `status` cannot make `move`, naming the allowed moves, or undefined when it can.
 * Campaign lifecycle: draft → running (start) → completed (all runs terminal) | cancelled (cancel, also from draft).
 */
export function campaignMoveRefusal(status: CampaignStatus, move: CampaignMove): string | undefined {
  const rule = MOVES[move];
  if (rule.from.includes(status)) return undefined;
  const allowed = (Object.keys(MOVES) as CampaignMove[]).filter((other) => MOVES[other].from.includes(status));
  const allowedText = allowed.length ? `allowed from ${status}: ${allowed.map((other) => `${other} (${status} → ${MOVES[other].to})`).join(', ')}` : `${status} is terminal, no move is allowed`;
  return `Cannot ${move} a ${status} campaign: ${move} moves ${rule.from.join(' or ')} → ${rule.to}; ${allowedText}.`;
}
