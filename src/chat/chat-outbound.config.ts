import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, Max, Min } from 'class-validator';
import { ConfigVariable, declareConfig } from '../config/config-variable';
import type { OutboundUseSettings } from '../common/outbound/outbound-client';

const OUTBOUND = 'Chat outbound calls';
const MIB = 1024 * 1024;

/**
 * The chat wing's outbound HTTP policy for the model (CHAT_LLM_*), the platform adapter (CHAT_PLATFORM_*) and the
 * external OAuth issuer's discovery and JWKS (CHAT_OAUTH_*) (issue 19 item 1; DESIGN.md, Trust boundaries). Tool providers keep CHAT_TOOL_ALLOW_PRIVATE_NETWORKS and
 * CHAT_TOOL_MAX_RESPONSE_BYTES. Metadata, link-local, multicast, broadcast, unspecified addresses and this server's own
 * ports are refused whatever the switches.
 */
export class ChatOutboundVariables {
  @ConfigVariable({
    group: OUTBOUND,
    description:
      '`true` lets the chat model (CHAT_LLM_BASE_URL) be on loopback or a private network. Default true: only the operator sets that URL, often to a model server of their own; metadata and link-local addresses and this server\'s and its database\'s ports stay refused',
    unit: 'flag',
  })
  @IsOptional() @IsIn(['true', 'false'])
  CHAT_LLM_ALLOW_PRIVATE_NETWORKS: 'true' | 'false' = 'true';

  @ConfigVariable({ group: OUTBOUND, description: 'largest reply read from the chat model; past it the exchange is aborted and the AI reply fails naming this cap', unit: 'bytes' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1024) @Max(1024 * MIB)
  CHAT_LLM_MAX_RESPONSE_BYTES: number = 10 * MIB;

  @ConfigVariable({
    group: OUTBOUND,
    description:
      '`true` lets the chat platform adapter (CHAT_PLATFORM_BASE_URL) reach loopback or a private network. Default true: only the operator sets that URL, and on-premises platform gateways are common; metadata and link-local addresses and this server\'s ports stay refused',
    unit: 'flag',
  })
  @IsOptional() @IsIn(['true', 'false'])
  CHAT_PLATFORM_ALLOW_PRIVATE_NETWORKS: 'true' | 'false' = 'true';

  @ConfigVariable({ group: OUTBOUND, description: 'largest reply read from the chat platform; past it the call fails naming this cap', unit: 'bytes' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1024) @Max(1024 * MIB)
  CHAT_PLATFORM_MAX_RESPONSE_BYTES: number = 8 * MIB;

  @ConfigVariable({
    group: OUTBOUND,
    description:
      '`true` lets the external OAuth issuer\'s discovery and JWKS requests (CHAT_OAUTH_ISSUER, CHAT_OAUTH_JWKS_URL) reach loopback or a private network. Default true: only the operator sets the issuer, and single sign-on servers are usually on the operator\'s own network; metadata and link-local addresses and this server\'s ports stay refused',
    unit: 'flag',
  })
  @IsOptional() @IsIn(['true', 'false'])
  CHAT_OAUTH_ALLOW_PRIVATE_NETWORKS: 'true' | 'false' = 'true';

  @ConfigVariable({ group: OUTBOUND, description: 'largest discovery document or JWKS read from the external OAuth issuer; past it the request fails naming this cap', unit: 'bytes' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1024) @Max(64 * MIB)
  CHAT_OAUTH_MAX_RESPONSE_BYTES: number = 1 * MIB;
}

/** The chat wing's outbound uses as {@link OutboundUseSettings} (`chatOutbound`). */
export const chatOutboundConfig = declareConfig({
  wing: 'chat',
  variables: ChatOutboundVariables,
  resolve: (vars) => ({
    chatOutbound: {
      llm: {
        use: 'chat model',
        switchName: 'CHAT_LLM_ALLOW_PRIVATE_NETWORKS',
        allowPrivateNetworks: vars.CHAT_LLM_ALLOW_PRIVATE_NETWORKS === 'true',
        maxResponseBytes: vars.CHAT_LLM_MAX_RESPONSE_BYTES,
        maxResponseBytesName: 'CHAT_LLM_MAX_RESPONSE_BYTES',
        defaultTimeoutMs: 600_000,
        maxRedirects: 3,
      } satisfies OutboundUseSettings,
      platform: {
        use: 'chat platform',
        switchName: 'CHAT_PLATFORM_ALLOW_PRIVATE_NETWORKS',
        allowPrivateNetworks: vars.CHAT_PLATFORM_ALLOW_PRIVATE_NETWORKS === 'true',
        maxResponseBytes: vars.CHAT_PLATFORM_MAX_RESPONSE_BYTES,
        maxResponseBytesName: 'CHAT_PLATFORM_MAX_RESPONSE_BYTES',
        defaultTimeoutMs: 600_000,
        maxRedirects: 0,
      } satisfies OutboundUseSettings,
      oauth: {
        use: 'OAuth issuer',
        switchName: 'CHAT_OAUTH_ALLOW_PRIVATE_NETWORKS',
        allowPrivateNetworks: vars.CHAT_OAUTH_ALLOW_PRIVATE_NETWORKS === 'true',
        maxResponseBytes: vars.CHAT_OAUTH_MAX_RESPONSE_BYTES,
        maxResponseBytesName: 'CHAT_OAUTH_MAX_RESPONSE_BYTES',
        defaultTimeoutMs: 60_000,
        maxRedirects: 3,
      } satisfies OutboundUseSettings,
    },
  }),
});

/** The resolved slice (`chatOutbound`). */
export type ChatOutboundConfig = ReturnType<typeof chatOutboundConfig.resolve>;

declare module '../config/app-config' {
  /** The chat wing's outbound policy: `chatOutbound`. */
  interface AppConfig extends ChatOutboundConfig {}
}
