import { defineJob } from '../../jobs/job-definition';

/**
 * Analyses one campaign (issue 4, Campaign analysis: "a durable job runs two phases"), then makes its cycle
 * comparison. `generation` is the start request it serves: the job does nothing for a record of another
 * generation or one that is no longer `generating`. Idempotent: a resumed job skips scenarios already diagnosed.
 */
export const ANALYSE_CAMPAIGN = defineJob<{ campaignId: string; generation: number }>('evaluation.campaign-analysis');
