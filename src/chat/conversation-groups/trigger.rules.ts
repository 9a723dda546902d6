import type { FieldProblem } from './id-lists';
import type { TriggerAction, TriggerActionConfig } from './trigger.entity';

/** The action-specific fields of a trigger request. */
export interface TriggerActionInput {
  action: TriggerAction;
  text?: string;
  scriptContentId?: string;
  tagNames?: string[];
  handoffReason?: string;
  targetConversationGroupId?: string;
}

type ActionField = 'text' | 'scriptContentId' | 'tagNames' | 'handoffReason' | 'targetConversationGroupId';

/** Which fields each action needs (`required`) or may have (`optional`); all others are refused. */
const FIELDS_BY_ACTION: Record<TriggerAction, { required: ActionField[]; optional: ActionField[] }> = {
  send_text: { required: ['text'], optional: [] },
  send_script: { required: ['scriptContentId'], optional: [] },
  add_tags: { required: ['tagNames'], optional: [] },
  handoff: { required: [], optional: ['handoffReason'] },
  switch_group: { required: ['targetConversationGroupId'], optional: [] },
  terminate: { required: [], optional: [] },
};

const ACTION_FIELDS: ActionField[] = ['text', 'scriptContentId', 'tagNames', 'handoffReason', 'targetConversationGroupId'];

/**
 * Checks a trigger's action fields against its action and normalises them (texts trimmed, tag names de-duplicated
 * case-insensitively). A `switch_group` trigger must move conversations to ANOTHER group than its own.
 * @param ownGroupId the group the trigger belongs to
 * @returns the action settings to store, the target group (switch_group) or null, and every problem
 */
export function normalizeTriggerAction(
  input: TriggerActionInput,
  ownGroupId: string,
): { actionConfig: TriggerActionConfig; targetConversationGroupId: string | null; problems: FieldProblem[] } {
  const rule = FIELDS_BY_ACTION[input.action];
  const problems: FieldProblem[] = [];
  for (const field of ACTION_FIELDS) {
    const value = input[field];
    const given = value !== undefined && value !== null;
    if (rule.required.includes(field) && !given) problems.push({ field, message: `${field} is required for action ${input.action}.` });
    else if (given && !rule.required.includes(field) && !rule.optional.includes(field)) problems.push({ field, message: `${field} does not apply to action ${input.action}.` });
  }
  const actionConfig: TriggerActionConfig = {};
  let target: string | null = null;
  switch (input.action) {
    case 'send_text':
      if (input.text !== undefined) {
        actionConfig.text = input.text.trim();
        if (!actionConfig.text) problems.push({ field: 'text', message: 'text must not be blank.' });
      }
      break;
    case 'send_script':
      if (input.scriptContentId) actionConfig.scriptContentId = input.scriptContentId;
      break;
    case 'add_tags':
      if (input.tagNames) {
        const names = distinct(input.tagNames);
        if (input.tagNames.some((name) => !name.trim())) problems.push({ field: 'tagNames', message: 'tagNames must not contain blank entries.' });
        actionConfig.tagNames = names;
      }
      break;
    case 'handoff':
      if (input.handoffReason?.trim()) actionConfig.reason = input.handoffReason.trim();
      break;
    case 'switch_group':
      if (input.targetConversationGroupId) {
        target = input.targetConversationGroupId;
        if (target === ownGroupId) problems.push({ field: 'targetConversationGroupId', message: 'targetConversationGroupId must be another conversation group than the trigger\'s own.' });
      }
      break;
    case 'terminate':
      break;
  }
  return { actionConfig, targetConversationGroupId: target, problems };
}

/** Trimmed, non-blank texts without case-insensitive duplicates (first kept). */
function distinct(values: readonly string[]): string[] {
  const seen = new Set<string>();
  return values
    .map((value) => value.trim())
    .filter((value) => {
      const key = value.toLocaleLowerCase();
      if (!value || seen.has(key)) return false;
      seen.add(key);
      return true;
    });
}
