/**
 * Planning a customer batch state change (chat-management-api.md, External contact: BatchChangeStateRequestV1 →
 * BatchChangeStateResponseV1; States and transitions: "customer batch state change"). Each item names a contact
 * (staff member + customer) and the contact way state it moves to; the plan says, per item, whether it changes,
 * is already in that state, or fails and why. Pure rules, no I/O.
 */

/** One requested change. */
export interface BatchStateItem {
  userId: string;
  externalUserId: string;
  state: string;
}

/** What the store knows about a contact named by an item. */
export interface BatchStateContact {
  id: string;
  state: string | null;
}

/** The decision for one item, in request order. */
export type BatchStatePlan =
  | { index: number; item: BatchStateItem; outcome: 'change'; contactId: string; previousState: string | null }
  | { index: number; item: BatchStateItem; outcome: 'unchanged'; contactId: string; previousState: string | null }
  | { index: number; item: BatchStateItem; outcome: 'failed'; reason: string };

/** Key of a contact within one corp. */
export function contactKey(userId: string, externalUserId: string): string {
  return `${userId}\u0000${externalUserId}`;
}

/**
 * Decides every item, first match wins:
 * 1. the same contact already appeared in an earlier item → failed (a contact moves once per batch);
 * 2. no contact way of the corp has the state → failed;
 * 3. the staff member has no such customer in the corp → failed;
 * 4. the contact is already in the state → unchanged (a success);
 * 5. otherwise → change.
 * @param items the request items, in order
 * @param contacts known contacts by {@link contactKey}
 * @param knownStates states of the corp's contact ways
 * @param corpName for the reasons
 */
export function planBatchStateChange(items: BatchStateItem[], contacts: ReadonlyMap<string, BatchStateContact>, knownStates: ReadonlySet<string>, corpName: string): BatchStatePlan[] {
  const firstIndex = new Map<string, number>();
  return items.map((item, index): BatchStatePlan => {
    const key = contactKey(item.userId, item.externalUserId);
    const earlier = firstIndex.get(key);
    if (earlier !== undefined) return { index, item, outcome: 'failed', reason: `Item ${earlier} already changes this contact; a contact can move once per batch.` };
    firstIndex.set(key, index);
    if (!knownStates.has(item.state)) return { index, item, outcome: 'failed', reason: `No contact way of corp "${corpName}" has the state "${item.state}".` };
    const contact = contacts.get(key);
    if (!contact) return { index, item, outcome: 'failed', reason: `Staff member ${item.userId} has no customer ${item.externalUserId} in corp "${corpName}".` };
    if (contact.state === item.state) return { index, item, outcome: 'unchanged', contactId: contact.id, previousState: contact.state };
    return { index, item, outcome: 'change', contactId: contact.id, previousState: contact.state };
  });
}
