import type { ChatMessage, ChatModel } from '../../llm/chat-model';
import type { AnswerCheck } from './analysis-report.schema';

/** Thrown when the app stops while an analysis waits for its model: the job is retried, the record is not failed. */
export class AnalysisInterruptedError extends Error {
  override readonly name = 'AnalysisInterruptedError';
  constructor() {
    super('The analysis was interrupted by shutdown; it resumes when a worker picks it up again.');
  }
}

/** Thrown when every attempt at a model answer failed (call errors or invalid answers); the message is the reason stored on the record. */
export class ModelAnswerError extends Error {
  override readonly name = 'ModelAnswerError';
}

/** How {@link askModel} retries. */
export interface AskOptions {
  /** What is asked, for the failure reason ("the synthesis"). */
  what: string;
  /** Attempts in all, ≥ 1 (EVAL_ANALYSIS_MAX_ATTEMPTS). */
  maxAttempts: number;
  /** Timeout of one model call, ms (EVAL_ANALYSIS_MODEL_TIMEOUT_MS). */
  timeoutMs: number;
  /** Wait after a failed call before the next attempt, ms, multiplied by the attempt number (EVAL_ANALYSIS_RETRY_DELAY_MS). */
  retryDelayMs: number;
  /** Ask for JSON mode (`response_format: json_object`). */
  json: boolean;
  temperature?: number;
  /** Aborted when the app stops: the wait ends with {@link AnalysisInterruptedError}. */
  signal?: AbortSignal;
  /** Called before every model call (to count calls). */
  onCall?: () => Promise<void> | void;
}

/** Longest invalid answer echoed back to the model with the errors, characters. */
const ECHO_MAX_CHARS = 8000;

/** Resolves with `promise`, or rejects with {@link AnalysisInterruptedError} as soon as `signal` aborts. */
export function unlessAborted<T>(promise: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(new AnalysisInterruptedError());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new AnalysisInterruptedError());
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

const sleep = (ms: number, signal?: AbortSignal) => unlessAborted(new Promise<void>((resolve) => setTimeout(resolve, ms).unref()), signal);

/**
 * Asks `model` until `check` accepts the answer (issue 4: "an invalid model answer is retried, then the record
 * ends failed with the reason"). An invalid answer is followed, in the same conversation, by the model's answer
 * and a message listing the validation errors; a failed call (HTTP error, or no answer within `timeoutMs`) is repeated after
 * `retryDelayMs × attempt`. At most `maxAttempts` calls in all.
 * @returns the accepted value and the number of calls it took
 * @throws ModelAnswerError after the last attempt, naming what failed and the last error
 * @throws AnalysisInterruptedError when `signal` aborts
 */
export async function askModel<T>(model: ChatModel, messages: ChatMessage[], check: (answer: string) => AnswerCheck<T>, options: AskOptions): Promise<{ value: T; attempts: number }> {
  const conversation = [...messages];
  let last = '';
  for (let attempt = 1; attempt <= options.maxAttempts; attempt++) {
    if (options.signal?.aborted) throw new AnalysisInterruptedError();
    await options.onCall?.();
    let answer: string;
    const started = Date.now();
    try {
      answer = await unlessAborted(model.complete(conversation, { json: options.json, timeoutMs: options.timeoutMs, temperature: options.temperature }), options.signal);
    } catch (error) {
      if (error instanceof AnalysisInterruptedError) throw error;
      // Said in our words: the SDK's timeout error is not always recognisable as one.
      last = Date.now() - started >= options.timeoutMs ? `the model did not answer within ${options.timeoutMs} ms` : `the model call failed: ${(error as Error).message}`;
      if (attempt < options.maxAttempts) await sleep(options.retryDelayMs * attempt, options.signal);
      continue;
    }
    const checked = check(answer);
    if (checked.ok) return { value: checked.value, attempts: attempt };
    last = `the answer was invalid: ${checked.errors.join('; ')}`;
    conversation.push(
      { role: 'assistant', content: answer.length > ECHO_MAX_CHARS ? `${answer.slice(0, ECHO_MAX_CHARS)}…` : answer },
      { role: 'user', content: `Your answer was rejected:\n- ${checked.errors.join('\n- ')}\nAnswer again with only one JSON object that follows the schema.` },
    );
  }
  throw new ModelAnswerError(`${options.what} failed after ${options.maxAttempts} attempt${options.maxAttempts > 1 ? 's' : ''}; last: ${last}`);
}
