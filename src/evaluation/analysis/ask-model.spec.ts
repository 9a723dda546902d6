import type { ChatMessage, ChatModel } from '../../llm/chat-model';
import { checkDiagnosisAnswer } from './analysis-report.schema';
import { AnalysisInterruptedError, askModel, ModelAnswerError } from './ask-model';

/** A scripted stand-in for the model port: answers (or throws) in order and records what it was sent. */
function scripted(answers: (string | Error)[]) {
  const calls: ChatMessage[][] = [];
  const model: ChatModel = {
    complete: async (messages) => {
      calls.push(structuredClone(messages));
      const next = answers.shift();
      if (next === undefined) throw new Error('no more answers');
      if (next instanceof Error) throw next;
      return next;
    },
  };
  return { model, calls };
}

const good = JSON.stringify({ summary: 'ok', findings: [] });
const options = { what: 'The diagnosis', maxAttempts: 3, timeoutMs: 1000, retryDelayMs: 0, json: true };

describe('askModel (retry with validation errors fed back)', () => {
  it('returns the first valid answer', async () => {
    const { model, calls } = scripted([good]);
    await expect(askModel(model, [{ role: 'user', content: 'q' }], checkDiagnosisAnswer, options)).resolves.toEqual({ value: { summary: 'ok', findings: [] }, attempts: 1 });
    expect(calls).toHaveLength(1);
  });

  it('feeds the validation errors back and succeeds on a later attempt', async () => {
    const { model, calls } = scripted(['not json', '{"summary":"x"}', good]);
    const result = await askModel(model, [{ role: 'user', content: 'q' }], checkDiagnosisAnswer, options);
    expect(result.attempts).toBe(3);
    expect(calls[1].slice(1)).toEqual([
      { role: 'assistant', content: 'not json' },
      { role: 'user', content: expect.stringContaining('the answer is not one JSON object') },
    ]);
    expect(calls[2].at(-1)?.content).toContain("/ must have required property 'findings'");
  });

  it('retries failed calls, then fails with the reason after the last attempt', async () => {
    const { model, calls } = scripted([new Error('503 upstream down'), 'nope', new Error('Request timed out.')]);
    const error = await askModel(model, [{ role: 'user', content: 'q' }], checkDiagnosisAnswer, options).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelAnswerError);
    expect((error as Error).message).toBe('The diagnosis failed after 3 attempts; last: the model call failed: Request timed out.');
    expect(calls).toHaveLength(3);
  });

  it('names a call that outlived the timeout as such', async () => {
    const slow: ChatModel = { complete: () => new Promise((_, reject) => setTimeout(() => reject(new Error('Connection error.')), 30)) };
    await expect(askModel(slow, [{ role: 'user', content: 'q' }], checkDiagnosisAnswer, { ...options, maxAttempts: 1, timeoutMs: 20 })).rejects.toThrow(
      'The diagnosis failed after 1 attempt; last: the model did not answer within 20 ms',
    );
  });

  it('reports the last validation errors when every answer is invalid', async () => {
    const { model } = scripted(['a', 'b']);
    await expect(askModel(model, [{ role: 'user', content: 'q' }], checkDiagnosisAnswer, { ...options, maxAttempts: 2 })).rejects.toThrow(
      'The diagnosis failed after 2 attempts; last: the answer was invalid: the answer is not one JSON object',
    );
  });

  it('stops waiting at once when the signal aborts (shutdown)', async () => {
    const controller = new AbortController();
    const model: ChatModel = { complete: () => new Promise(() => undefined) };
    const pending = askModel(model, [{ role: 'user', content: 'q' }], checkDiagnosisAnswer, { ...options, signal: controller.signal });
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(AnalysisInterruptedError);
  });
});
