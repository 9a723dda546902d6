import { mintAgentToken } from '../tokens/agent-token.format';
import { joinGrantPrefix, mintJoinGrant } from './join-grant.format';

describe('join grant format', () => {
  it('mints codes whose prefix can be read back', () => {
    const { code, prefix } = mintJoinGrant();
    expect(code).toMatch(/^atj_[0-9a-f]{8}_[A-Za-z0-9_-]{43}$/);
    expect(joinGrantPrefix(code)).toBe(prefix);
    expect(mintJoinGrant().code).not.toBe(code);
  });
  it('rejects anything else, agent tokens included', () => {
    expect(joinGrantPrefix(mintAgentToken().token)).toBeUndefined();
    expect(joinGrantPrefix(mintJoinGrant().code + 'x')).toBeUndefined();
    expect(joinGrantPrefix('')).toBeUndefined();
  });
});
