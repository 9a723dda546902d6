import {
  allowedActions,
  canDelete,
  canEdit,
  canMove,
  CONVERSATION_ACTIONS,
  CONVERSATION_STATUSES,
  type ConversationAction,
  type ConversationStatus,
  movableFrom,
  planTransition,
  refusalMessage,
  targetStatus,
} from './conversation-state.rules';

/** The designed graph, written out independently of the implementation's tables. */
const EDGES: [ConversationStatus, ConversationStatus][] = [
  ['pending', 'active'],
  ['pending', 'terminated'],
  ['active', 'terminated'],
];

describe('conversation state rules (chat-management-api.md, States and transitions: activate, terminate)', () => {
  describe('canMove over every (from, to) pair', () => {
    for (const from of CONVERSATION_STATUSES) {
      for (const to of CONVERSATION_STATUSES) {
        const expected = EDGES.some(([a, b]) => a === from && b === to);
        it(`${from} → ${to}: ${expected ? 'allowed' : 'not a move'}`, () => {
          expect(canMove(from, to)).toBe(expected);
        });
      }
    }
  });

  describe('planTransition over every (state, action) pair', () => {
    const expected: Record<ConversationStatus, Record<ConversationAction, ReturnType<typeof planTransition>>> = {
      pending: {
        activate: { kind: 'move', from: 'pending', to: 'active' },
        terminate: { kind: 'move', from: 'pending', to: 'terminated' },
      },
      active: {
        activate: { kind: 'unchanged', status: 'active' },
        terminate: { kind: 'move', from: 'active', to: 'terminated' },
      },
      terminated: {
        activate: { kind: 'refused', status: 'terminated', allowed: [] },
        terminate: { kind: 'unchanged', status: 'terminated' },
      },
    };
    for (const status of CONVERSATION_STATUSES) {
      for (const action of CONVERSATION_ACTIONS) {
        it(`${action} on ${status} → ${expected[status][action].kind}`, () => {
          expect(planTransition(status, action)).toEqual(expected[status][action]);
        });
      }
    }

    it('agrees with canMove: a plan is a move exactly when the graph has the edge to the action\'s target', () => {
      for (const status of CONVERSATION_STATUSES) {
        for (const action of CONVERSATION_ACTIONS) {
          expect(planTransition(status, action).kind === 'move').toBe(canMove(status, targetStatus(action)));
        }
      }
    });
  });

  it('lists the allowed actions per state (none once terminated)', () => {
    expect(allowedActions('pending')).toEqual(['activate', 'terminate']);
    expect(allowedActions('active')).toEqual(['terminate']);
    expect(allowedActions('terminated')).toEqual([]);
  });

  it('gives each action its target and the states its conditional UPDATE may move from', () => {
    expect(targetStatus('activate')).toBe('active');
    expect(targetStatus('terminate')).toBe('terminated');
    expect(movableFrom('activate')).toEqual(['pending']);
    expect(movableFrom('terminate')).toEqual(['pending', 'active']);
    for (const action of CONVERSATION_ACTIONS) expect(movableFrom(action)).not.toContain(targetStatus(action));
  });

  it('allows edits only while open and deletion unless active', () => {
    expect(CONVERSATION_STATUSES.map(canEdit)).toEqual([true, true, false]);
    expect(CONVERSATION_STATUSES.map(canDelete)).toEqual([true, false, true]);
  });

  it('names the current state and the allowed moves when refusing', () => {
    expect(refusalMessage('c1', 'terminated', 'activate')).toBe(
      'Conversation c1 is terminated; it cannot activate (terminated is final, no move is allowed; create a new conversation instead).',
    );
    expect(refusalMessage('c2', 'active', 'activate')).toBe('Conversation c2 is active; it cannot activate (allowed: terminate).');
  });
});
