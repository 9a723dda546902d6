import axios, { AxiosError, type AxiosRequestConfig, type AxiosResponse } from 'axios';
import type { RunReport } from '../../evaluation/reports/report.types';
import type { RunSummary } from '../../evaluation/rules/run-summary';
import type { RunStatus } from '../../evaluation/runs/run.entity';
import type { RunDto } from '../../evaluation/runs/runs.dto';
import type { ApiKeyDto, CreatedApiKeyDto } from '../../evaluation/auth/api-keys.dto';

// The wire shapes are the server's own response types (type-only imports: nothing of the server is loaded), so the
// client cannot drift from the API it calls.
/** A run as returned by POST /api/runs and GET /api/runs/{id} (evaluation-platform.md, Resources: Run). */
export type EvalRun = RunDto;
/** Run status: `queued` | `running` | `completed` | `failed` | `cancelled`. */
export type EvalRunStatus = RunStatus;
/**
 * The run's summary object: case and rule counts, `pass_rate` in 0..1, latency percentiles and duration in ms
 * (null latencies when no case got a reply).
 */
export type EvalRunSummary = RunSummary;
/** Body of GET /api/reports/{id}: header (scenario, `v<n>`, target), summary and every case with its rule verdicts. */
export type EvalReport = RunReport;
/** Trigger sources the skill client sends as `triggered_by` (evaluation-platform.md, Resources: Run). */
export type SkillTrigger = 'ai_assistant' | 'cli';

/** Body of POST /api/runs as sent by the skill client. */
export interface CreateRunRequest {
  scenario_id: string;
  target_id: string;
  /** Cases in flight at once (server: 1..100, capped by the target). */
  concurrency?: number;
  /** Times each case is run (server: 1..20). */
  repeat_count?: number;
  triggered_by: SkillTrigger;
}

/** A named API key as listed by GET /api/auth/api-keys (never its value). */
export type EvalApiKey = ApiKeyDto;
/** A key just created: the listing plus `key`, shown this once. */
export type EvalCreatedApiKey = CreatedApiKeyDto;

/** An RFC 9457 problem body as the platform sends it (`application/problem+json`). */
export interface EvalProblem {
  type?: string;
  title?: string;
  status?: number;
  detail?: string;
  instance?: string;
  errors?: { field?: string; messages?: string[] }[];
}

/**
 * Any failed evaluation-platform call. The message is one line built from the problem+json `title`/`detail` (plus
 * field errors for 400s) or from the network error, and never contains the API key or session token.
 * `transient` marks failures worth retrying while polling: no response at all, or HTTP 502/503/504.
 */
export class EvalApiError extends Error {
  override readonly name = 'EvalApiError';
  constructor(
    message: string,
    /** HTTP status, undefined for network errors. */
    readonly status?: number,
    /** The parsed problem body, when the server sent one. */
    readonly problem?: EvalProblem,
    /** True for network errors and 502/503/504. */
    readonly transient = false,
  ) {
    super(message);
  }
}

/** Options of {@link EvalApiClient}. Exactly one credential is used: the API key wins over the session token. */
export interface EvalApiClientOptions {
  /** Platform base URL, e.g. `https://eval.example.com` (http or https; a trailing slash is ignored). */
  apiUrl: string;
  /** Sent as `X-API-Key` (one of the server's EVAL_API_KEYS). */
  apiKey?: string;
  /** Sent as `Authorization: Bearer <token>` (a token from sign-in), used when no API key is given. */
  sessionToken?: string;
  /** Per-request timeout in ms (default 30000). */
  requestTimeoutMs?: number;
}

// Visible ASCII only: a credential with CR/LF or spaces could inject headers.
const CREDENTIAL_PATTERN = /^[\x21-\x7e]+$/;

/**
 * Validates that `value` is an absolute http(s) URL and returns it without a trailing slash.
 * @throws EvalApiError when the value is not an http(s) URL
 */
export function normalizeEvalApiUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new EvalApiError(`API URL is not a valid URL: ${JSON.stringify(value)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new EvalApiError(`API URL must use http or https, got ${url.protocol}`);
  }
  if (url.username || url.password) throw new EvalApiError('API URL must not contain credentials');
  return url.toString().replace(/\/+$/, '');
}

/**
 * Minimal HTTP client for the evaluation-platform endpoints the skill client needs (evaluation-platform.md,
 * Endpoints): POST /api/runs, GET /api/runs/{id}, GET /api/reports/{id}; and for `atrium-eval api-key` the named
 * API keys (POST/GET /api/auth/api-keys, DELETE /api/auth/api-keys/{name}). Every failure is thrown as
 * {@link EvalApiError}; redirects are not followed, so credentials never travel to another host.
 */
export class EvalApiClient {
  private readonly apiUrl: string;
  private readonly headers: Record<string, string>;
  private readonly secrets: string[];
  private readonly requestTimeoutMs: number;

  /**
   * @throws EvalApiError when the URL is invalid, no credential is given, or the credential has characters outside
   *   visible ASCII
   */
  constructor(options: EvalApiClientOptions) {
    this.apiUrl = normalizeEvalApiUrl(options.apiUrl);
    this.requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
    this.secrets = [options.apiKey, options.sessionToken].filter((s): s is string => Boolean(s));
    this.headers = { Accept: 'application/json, application/problem+json' };
    if (options.apiKey) {
      if (!CREDENTIAL_PATTERN.test(options.apiKey)) throw new EvalApiError('API key contains invalid characters');
      this.headers['X-API-Key'] = options.apiKey;
    } else if (options.sessionToken) {
      if (!CREDENTIAL_PATTERN.test(options.sessionToken)) throw new EvalApiError('session token contains invalid characters');
      this.headers.Authorization = `Bearer ${options.sessionToken}`;
    } else {
      throw new EvalApiError('no credentials: give an API key or a session token');
    }
  }

  /** The normalised base URL (no credentials in it). */
  get baseUrl(): string {
    return this.apiUrl;
  }

  /**
   * POST /api/runs: creates (and queues) a run.
   * @returns the run record (201), normally in status `queued`
   * @throws EvalApiError e.g. 400 (invalid body) or 404 (unknown scenario or target)
   */
  createRun(body: CreateRunRequest, signal?: AbortSignal): Promise<EvalRun> {
    return this.request<EvalRun>({ method: 'POST', url: '/api/runs', data: body, signal });
  }

  /**
   * GET /api/runs/{id}: reads a run (what pollers read).
   * @throws EvalApiError e.g. 404 for an unknown run
   */
  getRun(id: string, signal?: AbortSignal): Promise<EvalRun> {
    return this.request<EvalRun>({ method: 'GET', url: `/api/runs/${encodeURIComponent(id)}`, signal });
  }

  /**
   * GET /api/reports/{id}: the single report of a run.
   * @throws EvalApiError e.g. 404 for an unknown run
   */
  getReport(runId: string, signal?: AbortSignal): Promise<EvalReport> {
    return this.request<EvalReport>({ method: 'GET', url: `/api/reports/${encodeURIComponent(runId)}`, signal });
  }

  /**
   * POST /api/auth/api-keys: creates a named key (needs the admin right). The result holds the key, shown once.
   * @throws EvalApiError e.g. 400 (bad name), 403 (no admin right), 409 (name taken)
   */
  createApiKey(body: { name: string; admin?: boolean }): Promise<EvalCreatedApiKey> {
    return this.request<EvalCreatedApiKey>({ method: 'POST', url: '/api/auth/api-keys', data: body });
  }

  /**
   * GET /api/auth/api-keys: one page of named keys, newest first (needs the admin right).
   * @param includeRevoked also list revoked keys
   */
  listApiKeys(options: { includeRevoked?: boolean; page?: number; size?: number } = {}): Promise<{ content: EvalApiKey[]; totalElements: number; totalPages: number }> {
    const params = { include_revoked: options.includeRevoked ? 'true' : 'false', page: options.page ?? 0, size: options.size ?? 200 };
    return this.request({ method: 'GET', url: '/api/auth/api-keys', params });
  }

  /**
   * DELETE /api/auth/api-keys/{name}: revokes a key at once (needs the admin right).
   * @throws EvalApiError e.g. 404 (no key of that name)
   */
  revokeApiKey(name: string): Promise<EvalApiKey> {
    return this.request<EvalApiKey>({ method: 'DELETE', url: `/api/auth/api-keys/${encodeURIComponent(name)}` });
  }

  /** Sends one request; maps non-2xx answers and network failures to a secret-free EvalApiError. */
  private async request<T>(req: AxiosRequestConfig & { signal?: AbortSignal }): Promise<T> {
    let response: AxiosResponse;
    try {
      response = await axios.request({
        baseURL: this.apiUrl,
        timeout: this.requestTimeoutMs,
        ...req,
        headers: { ...this.headers },
        maxRedirects: 0,
        validateStatus: () => true,
      });
    } catch (err) {
      if (req.signal?.aborted) throw abortError(req.signal);
      throw new EvalApiError(this.redact(networkMessage(err, this.apiUrl)), undefined, undefined, true);
    }
    if (response.status >= 200 && response.status < 300) {
      if (response.data === null || typeof response.data !== 'object') {
        throw new EvalApiError(`unexpected response from ${req.method} ${req.url}: not a JSON object`, response.status);
      }
      return response.data as T;
    }
    throw this.httpError(response);
  }

  /** Builds the one-line error for a non-2xx response, preferring problem+json `title`/`detail`. */
  private httpError(response: AxiosResponse): EvalApiError {
    const body: unknown = response.data;
    const problem = body && typeof body === 'object' && !Array.isArray(body) ? (body as EvalProblem) : undefined;
    const title = (typeof problem?.title === 'string' && problem.title) || response.statusText || 'Request failed';
    let message = `${title} (HTTP ${response.status})`;
    if (typeof problem?.detail === 'string' && problem.detail) message += `: ${problem.detail}`;
    if (Array.isArray(problem?.errors) && problem.errors.length > 0) {
      const fields = problem.errors.map((e) =>
        e && typeof e === 'object' ? `${e.field ?? '?'}: ${(Array.isArray(e.messages) ? e.messages : []).join(', ')}` : String(e),
      );
      message += ` - ${fields.join('; ')}`;
    }
    const transient = [502, 503, 504].includes(response.status);
    return new EvalApiError(this.redact(message.replace(/\s*[\r\n]+\s*/g, ' ')), response.status, problem, transient);
  }

  /** Removes the credentials from any text that could reach a terminal or a log (the server might echo them). */
  private redact(text: string): string {
    let out = text;
    for (const secret of this.secrets) out = out.split(secret).join('[redacted]');
    return out;
  }
}

/** The error thrown when a caller's AbortSignal fires (its reason when that is an Error). */
export function abortError(signal: AbortSignal): Error {
  if (signal.reason instanceof Error) return signal.reason;
  const error = new Error('the operation was aborted');
  error.name = 'AbortError';
  return error;
}

function networkMessage(err: unknown, apiUrl: string): string {
  if (err instanceof AxiosError) {
    if (err.code === 'ECONNABORTED' || err.code === 'ETIMEDOUT') return `request to ${apiUrl} timed out`;
    return `cannot reach ${apiUrl}: ${err.message || err.code || 'network error'}`;
  }
  return `request to ${apiUrl} failed: ${err instanceof Error ? err.message : String(err)}`;
}
