import { loadConfig } from '../../app.config';
import { ConfigurationError } from '../../config/app-config';

describe('chat rule and tool provider configuration (CHAT_RULE_*, CHAT_TOOL_*)', () => {
  it('defaults to refusing private networks, with the documented limits', () => {
    const config = loadConfig({});
    expect(config.chatTools).toEqual({
      allowPrivateNetworks: false,
      maxProviders: 100,
      maxOperations: 50,
      maxSchemaBytes: 65_536,
      defaultTimeoutMs: 10_000,
      maxTimeoutMs: 30_000,
      maxRequestBytes: 65_536,
      maxResponseBytes: 1_048_576,
      maxRedirects: 3,
    });
    expect(config.chatRules).toEqual({ maxPerTenant: 500, maxPatterns: 100, maxPatternLength: 200, matchMaxChars: 2000 });
  });

  it('reads CHAT_TOOL_ALLOW_PRIVATE_NETWORKS as true / false only', () => {
    expect(loadConfig({ CHAT_TOOL_ALLOW_PRIVATE_NETWORKS: 'true' }).chatTools.allowPrivateNetworks).toBe(true);
    expect(loadConfig({ CHAT_TOOL_ALLOW_PRIVATE_NETWORKS: 'false' }).chatTools.allowPrivateNetworks).toBe(false);
    expect(() => loadConfig({ CHAT_TOOL_ALLOW_PRIVATE_NETWORKS: 'yes' })).toThrow(/CHAT_TOOL_ALLOW_PRIVATE_NETWORKS/);
  });

  it('refuses a default tool timeout above the maximum, and limits out of range', () => {
    expect(() => loadConfig({ CHAT_TOOL_DEFAULT_TIMEOUT_MS: '5000', CHAT_TOOL_MAX_TIMEOUT_MS: '1000' })).toThrow(ConfigurationError);
    expect(() => loadConfig({ CHAT_TOOL_DEFAULT_TIMEOUT_MS: '5000', CHAT_TOOL_MAX_TIMEOUT_MS: '1000' })).toThrow(/CHAT_TOOL_DEFAULT_TIMEOUT_MS: must not exceed CHAT_TOOL_MAX_TIMEOUT_MS/);
    expect(() => loadConfig({ CHAT_TOOL_MAX_REDIRECTS: '21' })).toThrow(/CHAT_TOOL_MAX_REDIRECTS/);
    expect(() => loadConfig({ CHAT_RULE_MATCH_MAX_CHARS: '0' })).toThrow(/CHAT_RULE_MATCH_MAX_CHARS/);
    expect(loadConfig({ CHAT_RULE_MATCH_MAX_CHARS: '500' }).chatRules.matchMaxChars).toBe(500);
  });
});
