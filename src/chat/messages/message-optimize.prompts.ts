import type { ChatMessage } from '../../llm/chat-model';

/**
 * Prompts of the optimize operations (chat-management-api.md, Contact message: comment optimize and advice
 * optimize). Pure: they build the model's messages; the service calls the model.
 */

/** Trims the model's answer and removes one pair of surrounding quotes or a code fence it may have added. */
export function cleanModelAnswer(answer: string): string {
  let text = answer.trim();
  const fenced = /^```[a-z]*\n([\s\S]*?)\n```$/i.exec(text);
  if (fenced) text = fenced[1].trim();
  if (text.length >= 2 && ((text.startsWith('"') && text.endsWith('"')) || (text.startsWith('“') && text.endsWith('”')))) text = text.slice(1, -1).trim();
  return text;
}

/**
 * Messages asking the model to turn an operator's draft review of an AI reply into a clear, actionable review.
 * @param input.message the reviewed message's text (or a description of its attachment)
 * @param input.draft the operator's draft review
 */
export function commentOptimizePrompt(input: { message: string; draft: string }): ChatMessage[] {
  return [
    {
      role: 'system',
      content:
        'You help operators review replies that an AI customer-service assistant sent to customers. Rewrite the operator\'s draft review so it is clear, specific and actionable: ' +
        'say what is wrong or right and how the reply should change. Keep the operator\'s meaning and language. Answer with the rewritten review only.',
    },
    { role: 'user', content: `The AI reply:\n${input.message}\n\nThe operator's draft review:\n${input.draft}` },
  ];
}

/**
 * Messages asking the model to rewrite a reply following an operator's advice.
 * @param input.message the message's text
 * @param input.advice what should change
 */
export function adviceOptimizePrompt(input: { message: string; advice: string }): ChatMessage[] {
  return [
    {
      role: 'system',
      content:
        'You rewrite replies that a customer-service assistant sends to customers in a chat. Follow the operator\'s advice, keep the facts of the original unless the advice changes them, ' +
        'keep the language of the original, and write a chat message a customer can read directly. Answer with the rewritten message only.',
    },
    { role: 'user', content: `The original reply:\n${input.message}\n\nThe operator's advice:\n${input.advice}` },
  ];
}
