import { agentTokenPrefix, mintAgentToken } from './agent-token.format';

describe('agent token format', () => {
  it('mints tokens whose prefix can be read back', () => {
    const { token, prefix } = mintAgentToken();
    expect(token).toMatch(/^atr_[0-9a-f]{8}_[A-Za-z0-9_-]{43}$/);
    expect(agentTokenPrefix(token)).toBe(prefix);
  });
  it('rejects anything else', () => {
    expect(agentTokenPrefix('atr_zzzzzzzz_' + 'a'.repeat(43))).toBeUndefined();
    expect(agentTokenPrefix('Bearer atr_')).toBeUndefined();
    expect(agentTokenPrefix(mintAgentToken().token + 'x')).toBeUndefined();
  });
});
