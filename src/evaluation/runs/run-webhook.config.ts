import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { ConfigVariable, declareConfig } from '../../config/config-variable';

const WEBHOOK = 'Run-completion webhook';

/**
 * The delivery lease of the run-completion webhook (issue 20 item 2: no work is stranded): an attempt holds the run's
 * webhook for EVAL_WEBHOOK_LEASE_MS; one whose process died is handed to the queue again by the webhook sweep.
 */
export class RunWebhookVariables {
  @ConfigVariable({
    group: WEBHOOK,
    description:
      'a webhook attempt\'s lease, longer than the 10 s webhook timeout: once it is this old without the attempt recording the receiver\'s answer (the process was killed or froze mid-call) the webhook sweep sends it again',
    unit: 'ms',
  })
  @IsOptional() @Type(() => Number) @IsInt() @Min(11_000) @Max(3_600_000)
  EVAL_WEBHOOK_LEASE_MS: number = 30_000;

  @ConfigVariable({ group: WEBHOOK, description: 'how often the webhook sweep looks for webhooks whose attempt died (also once at start-up); one instance at a time (advisory lock)', unit: 'ms' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(100) @Max(3_600_000)
  EVAL_WEBHOOK_SWEEP_INTERVAL_MS: number = 15_000;
}

/** The slice `runWebhook`: `leaseMs`, `sweepIntervalMs` (ms). */
export const runWebhookConfig = declareConfig({
  wing: 'evaluation',
  variables: RunWebhookVariables,
  resolve: (vars) => ({ runWebhook: { leaseMs: vars.EVAL_WEBHOOK_LEASE_MS, sweepIntervalMs: vars.EVAL_WEBHOOK_SWEEP_INTERVAL_MS } }),
});

/** The resolved slice. */
export type RunWebhookConfig = ReturnType<typeof runWebhookConfig.resolve>;

declare module '../../config/app-config' {
  /** The evaluation wing's `runWebhook` slice. */
  interface AppConfig extends RunWebhookConfig {}
}
