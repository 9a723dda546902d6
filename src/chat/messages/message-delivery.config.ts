import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { ConfigVariable, declareConfig } from '../../config/config-variable';

const DELIVERY = 'Chat message delivery';

/**
 * The delivery lease of outbound chat messages (issue 20 item 2: no work is stranded): a delivery attempt holds the
 * message for CHAT_DELIVERY_LEASE_MS, renewing it while it runs; a message whose attempt died with its process is
 * handed to the queue again by the delivery sweep.
 */
export class ChatDeliveryVariables {
  @ConfigVariable({
    group: DELIVERY,
    description:
      'an outbound message\'s delivery lease: the attempt sending it renews it every third of this; once it is this old (the process was killed or froze mid-send) the delivery sweep hands the message to another worker, which sends it again (the platform takes no idempotency key)',
    unit: 'ms',
  })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1000) @Max(3_600_000)
  CHAT_DELIVERY_LEASE_MS: number = 60_000;

  @ConfigVariable({ group: DELIVERY, description: 'how often the delivery sweep looks for messages whose lease ran out (also once at start-up); one instance at a time (advisory lock)', unit: 'ms' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(100) @Max(3_600_000)
  CHAT_DELIVERY_SWEEP_INTERVAL_MS: number = 15_000;
}

/** The slice `chatDelivery`: `leaseMs`, `sweepIntervalMs` (ms). */
export const chatDeliveryConfig = declareConfig({
  wing: 'chat',
  variables: ChatDeliveryVariables,
  resolve: (vars) => ({ chatDelivery: { leaseMs: vars.CHAT_DELIVERY_LEASE_MS, sweepIntervalMs: vars.CHAT_DELIVERY_SWEEP_INTERVAL_MS } }),
});

/** The resolved slice. */
export type ChatDeliveryConfig = ReturnType<typeof chatDeliveryConfig.resolve>;

declare module '../../config/app-config' {
  /** The chat wing's `chatDelivery` slice. */
  interface AppConfig extends ChatDeliveryConfig {}
}
