import { RESERVED_ROOT_SEGMENTS } from '../common/http/reserved-path-segments';
import { isValidNamespace, namespaceForAgent, namespaceProblem, RESERVED_NAMESPACES } from './namespace';

describe('namespace rules', () => {
  it.each(['alice', 'c-123', 'Team_7', 'apis', 'docs2'])('accepts %s', (value) => expect(isValidNamespace(value)).toBe(true));
  it.each(['', '..', '.hidden', 'a/b', 'api', 'DOCS', 'oauth', 'a b', 'x'.repeat(65), 'ünï'])('refuses %j', (value) =>
    expect(isValidNamespace(value)).toBe(false),
  );
  it.each(['api', 'Docs', 'docs-json', 'metrics', '.well-known', 'oauth', 'health', 'favicon.ico'])('names the reserved rule for %s', (value) =>
    expect(namespaceProblem(value)).toMatch(/is a reserved name: the app serves \//),
  );
  it('names the pattern for a badly formed name', () => expect(namespaceProblem('a/b')).toMatch(/letters, digits/));
  it('reserves exactly the shared root segments', () => expect([...RESERVED_NAMESPACES].sort()).toEqual([...RESERVED_ROOT_SEGMENTS].sort()));
  it('derives a valid namespace from any agent id', () => {
    expect(namespaceForAgent('Claude Agent #1')).toBe('agent-claude-agent-1');
    expect(namespaceForAgent('///')).toBe('agent-anonymous');
    expect(isValidNamespace(namespaceForAgent('x'.repeat(300)))).toBe(true);
  });
});
