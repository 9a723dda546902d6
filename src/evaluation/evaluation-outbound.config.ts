import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, Max, Min } from 'class-validator';
import { ConfigVariable, declareConfig } from '../config/config-variable';
import type { OutboundUseSettings } from '../common/outbound/outbound-client';

const OUTBOUND = 'Evaluation outbound calls';
const MIB = 1024 * 1024;

/**
 * The evaluation platform's outbound HTTP policy (issue 19 item 1; DESIGN.md, Trust boundaries): for each use (target
 * channels, model endpoints, the run-completion webhook) one switch for loopback and private networks and one byte cap
 * on replies. Metadata, link-local, multicast, broadcast, unspecified addresses and this server's own ports are refused
 * whatever the switches.
 */
export class EvaluationOutboundVariables {
  @ConfigVariable({
    group: OUTBOUND,
    description:
      '`true` lets `http` and `openai` targets reach loopback and private networks. Default true: the agents under test are usually the operator\'s own, on localhost or the office network. Set false when untrusted callers create targets; metadata, link-local addresses and this server\'s own and its database\'s ports stay refused either way',
    unit: 'flag',
  })
  @IsOptional() @IsIn(['true', 'false'])
  EVAL_TARGET_ALLOW_PRIVATE_NETWORKS: 'true' | 'false' = 'true';

  @ConfigVariable({ group: OUTBOUND, description: 'largest reply read from a target; past it the exchange is aborted and the case is `errored` naming this cap', unit: 'bytes' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1024) @Max(1024 * MIB)
  EVAL_TARGET_MAX_RESPONSE_BYTES: number = 10 * MIB;

  @ConfigVariable({
    group: OUTBOUND,
    description:
      '`true` lets model configurations (`base_url`: judges, analysis, exploration) reach loopback and private networks. Default false: any API caller can create a model configuration and its replies are stored, so it must not become a window onto internal services; set true for a self-hosted model server (Ollama, vLLM on localhost)',
    unit: 'flag',
  })
  @IsOptional() @IsIn(['true', 'false'])
  EVAL_MODEL_ALLOW_PRIVATE_NETWORKS: 'true' | 'false' = 'false';

  @ConfigVariable({ group: OUTBOUND, description: 'largest reply read from a model endpoint (judge, analysis, exploration); past it the call fails naming this cap', unit: 'bytes' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1024) @Max(1024 * MIB)
  EVAL_MODEL_MAX_RESPONSE_BYTES: number = 10 * MIB;

  @ConfigVariable({
    group: OUTBOUND,
    description:
      '`true` lets the run-completion webhook (EVAL_WEBHOOK_URL) reach loopback and private networks. Default true: only the operator sets that URL, usually to a receiver of their own; metadata and link-local addresses and this server\'s ports stay refused',
    unit: 'flag',
  })
  @IsOptional() @IsIn(['true', 'false'])
  EVAL_WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' | 'false' = 'true';

  @ConfigVariable({ group: OUTBOUND, description: 'largest reply read from the webhook receiver (its body is not used); past it the call is aborted and logged', unit: 'bytes' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1024) @Max(1024 * MIB)
  EVAL_WEBHOOK_MAX_RESPONSE_BYTES: number = 64 * 1024;
}

/** The evaluation platform's outbound uses as {@link OutboundUseSettings} (`evaluationOutbound`). */
export const evaluationOutboundConfig = declareConfig({
  wing: 'evaluation',
  variables: EvaluationOutboundVariables,
  resolve: (vars) => ({
    evaluationOutbound: {
      target: {
        use: 'evaluation target',
        switchName: 'EVAL_TARGET_ALLOW_PRIVATE_NETWORKS',
        allowPrivateNetworks: vars.EVAL_TARGET_ALLOW_PRIVATE_NETWORKS === 'true',
        maxResponseBytes: vars.EVAL_TARGET_MAX_RESPONSE_BYTES,
        maxResponseBytesName: 'EVAL_TARGET_MAX_RESPONSE_BYTES',
        defaultTimeoutMs: 30_000,
        // `openai` targets follow redirects (each hop judged again); `http` targets never do (their headers stay put).
        maxRedirects: 3,
      } satisfies OutboundUseSettings,
      model: {
        use: 'model',
        switchName: 'EVAL_MODEL_ALLOW_PRIVATE_NETWORKS',
        allowPrivateNetworks: vars.EVAL_MODEL_ALLOW_PRIVATE_NETWORKS === 'true',
        maxResponseBytes: vars.EVAL_MODEL_MAX_RESPONSE_BYTES,
        maxResponseBytesName: 'EVAL_MODEL_MAX_RESPONSE_BYTES',
        defaultTimeoutMs: 600_000,
        maxRedirects: 3,
      } satisfies OutboundUseSettings,
      webhook: {
        use: 'webhook',
        switchName: 'EVAL_WEBHOOK_ALLOW_PRIVATE_NETWORKS',
        allowPrivateNetworks: vars.EVAL_WEBHOOK_ALLOW_PRIVATE_NETWORKS === 'true',
        maxResponseBytes: vars.EVAL_WEBHOOK_MAX_RESPONSE_BYTES,
        maxResponseBytesName: 'EVAL_WEBHOOK_MAX_RESPONSE_BYTES',
        defaultTimeoutMs: 10_000,
        maxRedirects: 0,
      } satisfies OutboundUseSettings,
    },
  }),
});

/** The resolved slice (`evaluationOutbound`). */
export type EvaluationOutboundConfig = ReturnType<typeof evaluationOutboundConfig.resolve>;

declare module '../config/app-config' {
  /** The evaluation platform's outbound policy: `evaluationOutbound`. */
  interface AppConfig extends EvaluationOutboundConfig {}
}
