import { HttpStatus, Inject, Injectable, Logger, NotFoundException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ProblemException } from '../../common/http/problem-details';
import { OutboundHttp } from '../../common/outbound/outbound.service';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { chatLlm, type ChatLlm } from '../../llm/chat-llm-settings';
import type { ToolCallingChatModel } from '../../llm/chat-model';
import { parseToolArguments, type ToolCallRequest, type ToolChatMessage } from '../../llm/tool-calling';
import { ConversationGroupsService, type ConversationGroupConfiguration } from '../conversation-groups/conversation-groups.service';
import { UserConversationsService } from '../conversations/user-conversations.service';
import { DigitalStaffService } from '../digital-staff/digital-staff.service';
import { InterventionRulesService } from '../intervention-rules/intervention-rules.service';
import { ruleAppliesTo } from '../intervention-rules/intervention-rules.rules';
import { NO_CHAT_MODEL } from '../messages/message-optimizer.service';
import { ScriptsService } from '../scripts/scripts.service';
import { ToolCallError, ToolProvidersService } from '../tool-providers/tool-providers.service';
import { variablesByName } from '../variables/variable-resolution.rules';
import { VariablesService } from '../variables/variables.service';
import {
  buildReplyPrompt,
  buildToolCatalog,
  historyReadChars,
  latestCustomerText,
  malformedToolCalls,
  parseIntentReport,
  type PromptHistoryMessage,
  REPORT_INTENT_FUNCTION,
  renderReplyText,
  toolResultText,
  type ToolCatalog,
} from './ai-reply.rules';

/** Thrown when the model's answer is malformed (tool calls that are not well formed): the attempt fails with it. */
export class MalformedModelAnswerError extends Error {}

/**
 * The last `limit` messages of a contact, oldest first, each text read as at most `chars` characters
 * (`left(content, $4)`): the database never hands the app more than `limit × chars` characters of history, so one
 * huge old row can't blow the process's memory (issue 19 item 2). Attachment names are short columns (255).
 */
const HISTORY_SQL = `
  SELECT sender, msg_type AS "msgType", left(content, $4) AS content, attachment_file_name AS "attachmentFileName"
    FROM (SELECT id, created_at, sender, msg_type, content, attachment_file_name
            FROM chat_message WHERE tenant_id = $1 AND contact_id = $2
           ORDER BY created_at DESC, id DESC LIMIT $3) AS newest
   ORDER BY created_at, id`;

/** What to compose a reply for. */
export interface ComposeReplyInput {
  tenantId: string;
  /** The customer (chat_external_contact.id). */
  contactId: string;
  /** The digital staff that answers (chat_digital_staff.id): its persona is the system prompt. */
  digitalStaffId: string;
  /** Aborts the model and the wait between rounds (the compose rejects with `signal.reason`). */
  signal?: AbortSignal;
}

/** A composed AI reply (nothing is stored: the caller writes the message). */
export interface ComposedReply {
  /** What is sent: the model's answer with {{variable}} templates rendered. */
  text: string;
  /** The model's raw answer (stored as originalAiContent). */
  originalAiContent: string;
  /** From the built-in report_customer_intent function (the last valid report), or null. */
  detectedIntent: { name: string; confidence: number | null } | null;
  /** Every tool provider call the model made, in order; `status` = the provider's HTTP status when it answered. */
  toolCalls: Array<{ providerId: string; operation: string; ok: boolean; status?: number; durationMs: number }>;
  /** Script contents offered to the model. */
  scriptIds: string[];
}

/** Thrown by {@link AiReplyComposer.compose} when the chat wing has no model (CHAT_LLM_BASE_URL / CHAT_LLM_MODEL unset): problem+json 400. */
export class ModelNotConfiguredError extends ProblemException {
  constructor() {
    super(HttpStatus.BAD_REQUEST, NO_CHAT_MODEL);
  }
}

/** Temperature of reply completions. */
const REPLY_TEMPERATURE = 0.3;

/**
 * Composes the digital staff's AI reply to a contact (issue 6, "The inbound pipeline": the reply step; the prompt
 * rules are ai-reply.rules.ts). Reads the digital staff (persona), the contact's history
 * (CHAT_AI_REPLY_HISTORY_MESSAGES messages, or the group's historyMessageCount, within CHAT_AI_REPLY_HISTORY_MAX_CHARS;
 * each message's text is cut in the query itself, so the read is bounded in bytes whatever the rows hold), its open conversation's group configuration, the scripts found for the latest
 * customer text (at most CHAT_AI_REPLY_MAX_SCRIPTS, CHAT_AI_REPLY_SCRIPT_MAX_CHARS), the contact's variables, and
 * the tenant's tool provider operations. Asks the chat wing's model (CHAT_LLM_*) with those operations and the
 * built-in `report_customer_intent` as functions, for at most CHAT_AI_REPLY_MAX_TOOL_ROUNDS rounds of calls; then
 * the model must answer in text. Pure reads: writes nothing.
 */
@Injectable()
export class AiReplyComposer {
  private readonly logger = new Logger(AiReplyComposer.name);
  /** CHAT_LLM_*'s client, built once; null when unset. */
  private readonly llm: ChatLlm | null;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly digitalStaff: DigitalStaffService,
    private readonly conversations: UserConversationsService,
    private readonly groups: ConversationGroupsService,
    private readonly scripts: ScriptsService,
    private readonly variables: VariablesService,
    private readonly toolProviders: ToolProvidersService,
    private readonly interventionRules: InterventionRulesService,
    outboundHttp: OutboundHttp,
  ) {
    this.llm = chatLlm(config.chatLlm, outboundHttp.client(config.chatOutbound.llm));
  }

  /**
   * Builds the prompt (digital staff persona, the contact's conversation history incl. the latest inbound message —
   * each text cut by the query —, its open conversation's group configuration, matching script contents,
   * variables resolved for the contact) and asks the model (CHAT_LLM_*), letting it call the tenant's tool API
   * providers as functions (bounded rounds). A failed tool call (refused, timed out, bad arguments, unknown name) is
   * given to the model as an error result, never thrown. Pure reads: writes nothing.
   * @throws ModelNotConfiguredError (a ProblemException 400) when CHAT_LLM_* is unset
   * @throws NotFoundException (404) no such digital staff or contact in the tenant
   * @throws MalformedModelAnswerError malformed tool calls (ai-reply.rules.ts malformedToolCalls)
   * @throws Error on model failure/timeout, an empty answer, or tool calls after the last round (the caller's job
   *   retries); `signal.reason` when aborted
   */
  async compose(input: ComposeReplyInput): Promise<ComposedReply> {
    if (!this.llm) throw new ModelNotConfiguredError();
    const { settings, model } = this.llm;
    const { tenantId, contactId, signal } = input;
    const limits = this.config.chatAiReply;

    const staff = await this.digitalStaff.findById(tenantId, input.digitalStaffId);
    if (!staff) throw new NotFoundException(`No digital staff ${input.digitalStaffId} in this tenant.`);
    const resolved = await this.variables.resolveForContact(tenantId, contactId, staff.id);
    const variables = variablesByName(resolved.variables);
    const conversation = await this.conversations.openForContact(tenantId, contactId);
    const configuration = conversation ? await this.groups.configuration(tenantId, conversation.conversationGroupId) : null;
    const history = await this.history(tenantId, contactId, configuration?.group.historyMessageCount || limits.historyMessages, historyReadChars(limits.historyMaxChars));
    const latest = latestCustomerText(history);
    const scriptLimit = Math.min(limits.maxScripts, this.config.chatScripts.searchMaxResults);
    const scriptHits = latest && scriptLimit > 0 ? await this.scripts.search(tenantId, latest, scriptLimit) : [];
    const catalog = buildToolCatalog(await this.toolProviders.listTools(tenantId));
    const knownIntents = await this.knownIntents(tenantId, staff.id, configuration);
    signal?.throwIfAborted();

    const prompt = buildReplyPrompt({
      staff: { name: staff.name, persona: staff.persona, description: staff.description },
      group: configuration
        ? {
            name: configuration.group.name,
            description: configuration.group.description,
            systemPrompt: configuration.group.systemPrompt,
            maxReplyChars: configuration.group.maxReplyChars,
            eventDefinitions: configuration.eventDefinitions.map((event) => ({ name: event.name, eventType: event.eventType, description: event.description })),
            triggers: configuration.triggers.map((trigger) => ({ name: trigger.name, action: trigger.action, description: trigger.description })),
          }
        : null,
      scripts: scriptHits.map((hit) => ({ id: hit.script.id, title: hit.script.title, content: hit.script.content })),
      variables,
      knownIntents,
      history: history.map((message) => ({ sender: message.sender, msgType: message.msgType, content: message.content, attachmentFileName: message.attachmentFileName })),
      limits: { historyMaxChars: limits.historyMaxChars, scriptMaxChars: limits.scriptMaxChars },
    });

    const conversationMessages: ToolChatMessage[] = [...prompt.messages];
    const toolCalls: ComposedReply['toolCalls'] = [];
    let detectedIntent: ComposedReply['detectedIntent'] = null;
    for (let round = 0; ; round++) {
      const lastRound = round >= limits.maxToolRounds;
      const completion = await this.ask(model, settings.model, conversationMessages, catalog, lastRound, signal);
      if (completion.kind === 'text') {
        const raw = completion.text.trim();
        if (!raw) throw new Error(`The chat model (${settings.model}) answered nothing.`);
        return { text: renderReplyText(raw, variables), originalAiContent: raw, detectedIntent, toolCalls, scriptIds: prompt.scriptIds };
      }
      const malformed = malformedToolCalls(completion.toolCalls);
      if (malformed) throw new MalformedModelAnswerError(malformed);
      if (lastRound) throw new Error(`The chat model (${settings.model}) still called tools after ${limits.maxToolRounds} rounds (CHAT_AI_REPLY_MAX_TOOL_ROUNDS).`);
      conversationMessages.push({ role: 'assistant', content: completion.text, toolCalls: completion.toolCalls });
      for (const call of completion.toolCalls) {
        signal?.throwIfAborted();
        if (call.name === REPORT_INTENT_FUNCTION) {
          const report = parseIntentReport(call.arguments);
          if (report.ok) detectedIntent = report.intent;
          conversationMessages.push({ role: 'tool', toolCallId: call.id, content: JSON.stringify(report.ok ? { ok: true } : { ok: false, error: report.error }) });
          continue;
        }
        const result = await this.callTool(tenantId, catalog, call, toolCalls);
        conversationMessages.push({ role: 'tool', toolCallId: call.id, content: toolResultText(result, limits.toolResultMaxChars) });
      }
    }
  }

  /**
   * The contact's conversation history for the prompt (see HISTORY_SQL): the last `limit` (1..500) messages, oldest
   * first, each text cut by the query to `chars` characters.
   */
  private async history(tenantId: string, contactId: string, limit: number, chars: number): Promise<PromptHistoryMessage[]> {
    const take = Math.min(Math.max(1, Math.trunc(limit)), 500);
    return (await this.dataSource.query(HISTORY_SQL, [tenantId, contactId, take, chars])) as PromptHistoryMessage[];
  }

  /** One model round; after the last allowed tool round the model may only answer in text. */
  private async ask(model: ToolCallingChatModel, modelName: string, messages: ToolChatMessage[], catalog: ToolCatalog, lastRound: boolean, signal?: AbortSignal) {
    signal?.throwIfAborted();
    try {
      return await model.completeWithTools(messages, catalog.definitions, { timeoutMs: this.config.chatLlm.timeoutMs, temperature: REPLY_TEMPERATURE, signal, toolChoice: lastRound ? 'none' : 'auto' });
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      throw new Error(`The chat model (${modelName}) failed: ${(error as Error).message}`);
    }
  }

  /**
   * Runs one provider operation the model called and returns what the model reads: `{ ok, status, body }` for an
   * answer (any HTTP status), `{ ok: false, error, message }` for a call that could not be made. Records the call.
   */
  private async callTool(tenantId: string, catalog: ToolCatalog, call: ToolCallRequest, record: ComposedReply['toolCalls']): Promise<unknown> {
    const target = catalog.operations.get(call.name);
    if (!target) return { ok: false, error: 'unknown_function', message: `There is no function "${call.name}".` };
    const args = parseToolArguments(call.arguments);
    if (!args) {
      record.push({ providerId: target.providerId, operation: target.operation, ok: false, durationMs: 0 });
      return { ok: false, error: 'invalid_arguments', message: 'The arguments are not valid JSON.' };
    }
    const started = Date.now();
    try {
      const result = await this.toolProviders.call(tenantId, target.providerId, target.operation, args.value);
      record.push({ providerId: target.providerId, operation: target.operation, ok: result.ok, status: result.status, durationMs: result.durationMs });
      return { ok: result.ok, status: result.status, body: result.body };
    } catch (error) {
      record.push({ providerId: target.providerId, operation: target.operation, ok: false, durationMs: Date.now() - started });
      if (error instanceof ToolCallError) return { ok: false, error: error.code, message: error.message };
      this.logger.warn(`Tenant ${tenantId}, tool provider ${target.providerId}, operation ${target.operation}: unexpected failure: ${(error as Error).message}`);
      return { ok: false, error: 'internal_error', message: 'The call could not be made.' };
    }
  }

  /**
   * Intent names the tenant already uses: the patterns of enabled `intent` human-intervention rules that apply to
   * this digital staff, and the intents of the group's `intent_detected` event definitions.
   */
  private async knownIntents(tenantId: string, digitalStaffId: string, configuration: ConversationGroupConfiguration | null): Promise<string[]> {
    const rules = await this.interventionRules.enabledRules(tenantId);
    const fromRules = rules.filter((rule) => rule.matchType === 'intent' && ruleAppliesTo(rule, digitalStaffId)).flatMap((rule) => rule.patterns);
    const fromEvents = (configuration?.eventDefinitions ?? []).filter((event) => event.eventType === 'intent_detected').flatMap((event) => event.condition.intents ?? []);
    return [...fromRules, ...fromEvents];
  }
}
