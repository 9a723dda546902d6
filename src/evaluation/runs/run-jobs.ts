import { defineJob } from '../../jobs/job-definition';

/** Executes one run (evaluation-platform.md: runs are durable jobs). Idempotent: a resumed run skips finished cases. */
export const RUN_EVALUATION = defineJob<{ runId: string }>('evaluation.run');
