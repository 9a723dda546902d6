import { isValidNamespace, namespaceForAgent } from './namespace';

describe('namespace rules', () => {
  it.each(['alice', 'c-123', 'Team_7'])('accepts %s', (value) => expect(isValidNamespace(value)).toBe(true));
  it.each(['', '..', '.hidden', 'a/b', 'api', 'DOCS', 'oauth', 'a b', 'x'.repeat(65), 'ünï'])('refuses %j', (value) =>
    expect(isValidNamespace(value)).toBe(false),
  );
  it('derives a valid namespace from any agent id', () => {
    expect(namespaceForAgent('Claude Agent #1')).toBe('agent-claude-agent-1');
    expect(namespaceForAgent('///')).toBe('agent-anonymous');
    expect(isValidNamespace(namespaceForAgent('x'.repeat(300)))).toBe(true);
  });
});
