import axios, { AxiosError, type AxiosProgressEvent, type AxiosRequestConfig, type AxiosResponse } from 'axios';
import { promises as fs, openAsBlob } from 'node:fs';
import * as path from 'node:path';
import type { Page } from '../../common/paging/page';
import type { DeployResultDto, DeploymentDto } from '../../deploy/deployments/deployments.dto';
import type { ExecResultDto } from '../../deploy/exec/exec.dto';
import type { HealthDto } from '../../deploy/health/health.controller';
import type { IssuedJoinGrantDto, JoinGrantDto } from '../../deploy/namespaces/namespaces.dto';
import type { RegistrationResultDto } from '../../deploy/tokens/tokens.dto';
import type { UploadResultDto } from '../../deploy/uploads/uploads.dto';
import { type DeployClientConfig, readConfig, resolveConfigPath, writeConfig } from './client-config';

// The wire shapes are the server's own response DTOs (type-only imports: nothing of the server is loaded), so the
// client cannot drift from the API it calls.
/** 201 body of POST /api/auth/register (deployment-gateway.md, Authentication). */
export type RegisterResult = RegistrationResultDto;
/** 201 body of POST /api/deploy; `elapsedSeconds` is measured by the server. */
export type DeployResult = DeployResultDto;
/** 201 body of POST /api/upload: stored absolute path, size in bytes and hex SHA-256 of the content. */
export type UploadResult = UploadResultDto;
/** 200 body of POST /api/exec. `durationMs` in milliseconds; outputs may be truncated by the server. */
export type ExecResult = ExecResultDto;
/** One row of GET /api/deployments. */
export type DeploymentSummary = DeploymentDto;
/** Page envelope of GET /api/deployments (`page` is zero-based). */
export type DeploymentPage = Page<DeploymentDto>;
/** 200 body of GET /api/health. */
export type HealthResult = HealthDto;
/** 201 body of POST /api/admin/namespaces/{namespace}/grants: the one-time `code` is shown only here. */
export type IssuedJoinGrant = IssuedJoinGrantDto;
/** Page envelope of GET /api/admin/namespaces/{namespace}/grants (no codes). */
export type JoinGrantPage = Page<JoinGrantDto>;

/** Upload progress callback: bytes sent so far and total request bytes (undefined when unknown). */
export type ProgressListener = (loadedBytes: number, totalBytes: number | undefined) => void;

/**
 * Any failed gateway call. The message is one line, built from the server's problem+json `title`/`detail`
 * (plus `rule` for blocked exec commands) or from the network error, and never contains the token or the
 * registration key (deployment-gateway.md, Versioning: 2.0.1 token-injection fix).
 */
export class DeployApiError extends Error {
  override readonly name = 'DeployApiError';
  constructor(
    message: string,
    /** HTTP status, undefined for network errors. */
    readonly status?: number,
    /** The parsed problem+json body, when the server sent one. */
    readonly problem?: {
      type?: string;
      title?: string;
      status?: number;
      detail?: string;
      instance?: string;
      rule?: string;
      errors?: unknown;
    },
  ) {
    super(message);
  }
}

/** Options for {@link DeployApiClient}. */
export interface DeployApiClientOptions {
  /**
   * Persists the config after registration stored a new token (deployment-gateway.md, States: "token is saved in
   * the client configuration"). Omit to keep the token in memory only.
   */
  saveConfig?: (config: DeployClientConfig) => Promise<void>;
  /** Socket inactivity timeout per request in ms (default 120000; 0 disables). */
  requestTimeoutMs?: number;
}

// Visible ASCII only: a token with CR/LF or spaces could inject headers (the 2.0.1 token-injection fix).
const TOKEN_PATTERN = /^[\x21-\x7e]+$/;

/**
 * HTTP client for the deployment gateway (deployment-gateway.md, Endpoints), one method per endpoint.
 * Token-needing methods register automatically first when the config holds no token (spec: "Client rule"),
 * then send `Authorization: Bearer <token>`. Every failure is thrown as {@link DeployApiError}.
 */
export class DeployApiClient {
  private readonly config: DeployClientConfig;
  private readonly saveConfig?: (config: DeployClientConfig) => Promise<void>;
  private readonly requestTimeoutMs: number;

  /**
   * @param config client config (copied; the token field is updated on registration)
   * @param options persistence hook and timeout
   */
  constructor(config: DeployClientConfig, options: DeployApiClientOptions = {}) {
    this.config = { ...config };
    this.saveConfig = options.saveConfig;
    this.requestTimeoutMs = options.requestTimeoutMs ?? 120_000;
  }

  /**
   * Creates a client from the config file; a token obtained by registration is written back to the same file.
   * @param file config path (default {@link resolveConfigPath})
   * @throws ConfigError when the file is missing or invalid
   */
  static async fromConfigFile(file: string = resolveConfigPath()): Promise<DeployApiClient> {
    const config = await readConfig(file);
    return new DeployApiClient(config, { saveConfig: (updated) => writeConfig(file, updated) });
  }

  /** A copy of the current config (includes the token: do not print it). */
  getConfig(): DeployClientConfig {
    return { ...this.config };
  }

  /**
   * A client for the gateway owner's API (`/api/admin/*`): the owner token is sent as the bearer, nothing registers.
   * @param apiUrl gateway base URL
   * @param ownerToken the owner credential (DEPLOY_OWNER_TOKEN); never printed, redacted from error messages
   */
  static forOwner(apiUrl: string, ownerToken: string): DeployApiClient {
    return new DeployApiClient({ apiUrl, registrationKey: '', token: ownerToken, agentId: '' });
  }

  /**
   * POST /api/auth/register: self-registers with the registration key, stores the token in the config and saves it.
   * When the config already holds a token it is sent as `Authorization: Bearer` (issue 12, item 3): re-registering
   * an existing agent is a rotation that needs the current token, and the old token stops working.
   * @param contactId optional namespace to bind at registration
   * @param options.joinGrant the owner's one-time join code, needed to join a namespace another agent claimed
   * @returns the server's answer (contains the token: print only `tokenPrefix` and `permissions`)
   * @throws DeployApiError on HTTP/network failure (409 agent or namespace taken, 403 grant refused) or when the
   *   returned token is malformed
   */
  async register(contactId?: string, options: { joinGrant?: string } = {}): Promise<RegisterResult> {
    const body: Record<string, string> = { registrationKey: this.config.registrationKey };
    if (this.config.agentId) body.agentId = this.config.agentId;
    if (this.config.instanceName) body.instanceName = this.config.instanceName;
    if (contactId) body.contactId = contactId;
    if (options.joinGrant) body.joinGrant = options.joinGrant;
    const result = await this.request<RegisterResult>({ method: 'POST', url: '/api/auth/register', data: body }, this.config.token ? 'current' : false);
    if (typeof result?.token !== 'string' || !TOKEN_PATTERN.test(result.token)) {
      throw new DeployApiError('registration returned no usable token');
    }
    this.config.token = result.token;
    if (this.saveConfig) await this.saveConfig(this.getConfig());
    return result;
  }

  /**
   * POST /api/deploy: uploads a .tar.gz (streamed from disk, multipart field `archive`) and publishes it under
   * the namespace `contactId` (deployment-gateway.md, Endpoints; needs permission `deploy`).
   * @param archiveFile path of the .tar.gz (see packSiteDirectory)
   * @param options project name, namespace and optional upload progress listener
   * @returns the deployment with its access URL, directory name and server-side elapsed seconds
   * @throws DeployApiError (e.g. 413 when the archive is too large, 403 without permission)
   */
  async deploy(
    archiveFile: string,
    options: { projectName: string; contactId: string; onProgress?: ProgressListener },
  ): Promise<DeployResult> {
    const form = new FormData();
    form.append('projectName', options.projectName);
    form.append('contactId', options.contactId);
    form.append('archive', await fileBlob(archiveFile, 'application/gzip'), path.basename(archiveFile));
    return this.request<DeployResult>(
      { method: 'POST', url: '/api/deploy', data: form, onUploadProgress: progressAdapter(options.onProgress) },
      true,
      options.contactId,
    );
  }

  /**
   * POST /api/upload: uploads one local file (streamed, multipart field `file`) to an absolute path on the server,
   * which must be inside the server's allowed directories (deployment-gateway.md, Errors). Needs `deploy`.
   * @throws DeployApiError when the path is refused or on any HTTP/network failure
   */
  async upload(localFile: string, remotePath: string, options: { onProgress?: ProgressListener } = {}): Promise<UploadResult> {
    const form = new FormData();
    form.append('path', remotePath);
    form.append('file', await fileBlob(localFile, 'application/octet-stream'), path.basename(localFile));
    return this.request<UploadResult>({
      method: 'POST',
      url: '/api/upload',
      data: form,
      onUploadProgress: progressAdapter(options.onProgress),
    });
  }

  /**
   * POST /api/exec: runs a command on the server (deployment-gateway.md, Endpoints; needs `exec`). The command is
   * sent as a JSON string; nothing runs locally. A non-zero remote exit code is a normal result, not an error.
   * @param command command line to run remotely
   * @param options optional working directory and timeout in milliseconds
   * @throws DeployApiError on 403 (blocked command: message carries the `rule`) or other failures
   */
  async exec(command: string, options: { cwd?: string; timeoutMs?: number } = {}): Promise<ExecResult> {
    const body: { command: string; cwd?: string; timeoutMs?: number } = { command };
    if (options.cwd) body.cwd = options.cwd;
    if (options.timeoutMs !== undefined) body.timeoutMs = options.timeoutMs;
    // The HTTP socket stays silent while the command runs, so wait longer than the remote timeout.
    const timeout =
      options.timeoutMs === undefined ? 0 : Math.max(this.requestTimeoutMs, options.timeoutMs + 30_000);
    return this.request<ExecResult>({ method: 'POST', url: '/api/exec', data: body, timeout });
  }

  /**
   * GET /api/deployments: one page of the caller's deployments (needs `list`).
   * @param options zero-based page (default 0) and page size (default 20)
   */
  async listDeployments(options: { page?: number; size?: number } = {}): Promise<DeploymentPage> {
    return this.request<DeploymentPage>({
      method: 'GET',
      url: '/api/deployments',
      params: { page: options.page ?? 0, size: options.size ?? 20 },
    });
  }

  /**
   * DELETE /api/deploy/{id}: removes a deployment and its files (needs `delete`). Resolves on 204.
   * @throws DeployApiError e.g. 404 when the id is unknown in the caller's namespace
   */
  async deleteDeployment(id: string): Promise<void> {
    await this.request<unknown>({ method: 'DELETE', url: `/api/deploy/${encodeURIComponent(id)}` });
  }

  /**
   * GET /api/health: no token needed, never triggers registration.
   * @throws DeployApiError when the server answers 503 (database down) or is unreachable
   */
  async health(): Promise<HealthResult> {
    return this.request<HealthResult>({ method: 'GET', url: '/api/health' }, false);
  }

  /**
   * POST /api/admin/namespaces/{namespace}/grants (owner only, see {@link forOwner}): a one-time join code for the
   * namespace (issue 12, item 3).
   * @param options lifetime in ms (server default when absent), note, permission cap
   * @throws DeployApiError 404 unknown namespace, 400 lifetime too long, 401/403 not the owner
   */
  async issueJoinGrant(namespace: string, options: { ttlMs?: number; note?: string; permissions?: string[] } = {}): Promise<IssuedJoinGrant> {
    const body: Record<string, unknown> = {};
    if (options.ttlMs !== undefined) body.ttlMs = options.ttlMs;
    if (options.note) body.note = options.note;
    if (options.permissions) body.permissions = options.permissions;
    return this.request<IssuedJoinGrant>({ method: 'POST', url: `/api/admin/namespaces/${encodeURIComponent(namespace)}/grants`, data: body });
  }

  /** GET /api/admin/namespaces/{namespace}/grants (owner only): the namespace's grants and their states, no codes. */
  async listJoinGrants(namespace: string, options: { page?: number; size?: number } = {}): Promise<JoinGrantPage> {
    return this.request<JoinGrantPage>({
      method: 'GET',
      url: `/api/admin/namespaces/${encodeURIComponent(namespace)}/grants`,
      params: { page: options.page ?? 0, size: options.size ?? 20 },
    });
  }

  /** DELETE /api/admin/namespaces/{namespace}/grants/{prefix} (owner only). Resolves on 204. */
  async revokeJoinGrant(namespace: string, prefix: string): Promise<void> {
    await this.request<unknown>({ method: 'DELETE', url: `/api/admin/namespaces/${encodeURIComponent(namespace)}/grants/${encodeURIComponent(prefix)}` });
  }

  /**
   * Sends one request; maps every non-2xx answer and network failure to a token-free DeployApiError.
   * @param auth true: the token, registering first when there is none; `current`: the token as it is (rotation); false: none
   */
  private async request<T>(req: AxiosRequestConfig, auth: boolean | 'current' = true, contactId?: string): Promise<T> {
    const headers: Record<string, string> = { Accept: 'application/json, application/problem+json' };
    if (auth) {
      if (!this.config.token && auth !== 'current') await this.register(contactId);
      const token = this.config.token!;
      if (!TOKEN_PATTERN.test(token)) throw new DeployApiError('stored token is malformed; run "register" again');
      headers.Authorization = `Bearer ${token}`;
    }
    let response: AxiosResponse;
    try {
      response = await axios.request({
        baseURL: this.config.apiUrl,
        timeout: this.requestTimeoutMs,
        ...req,
        headers,
        // No redirects: a redirect must never carry the token elsewhere.
        maxRedirects: 0,
        maxBodyLength: Infinity,
        maxContentLength: Infinity,
        validateStatus: () => true,
      });
    } catch (err) {
      throw new DeployApiError(this.redact(networkMessage(err, this.config.apiUrl)));
    }
    if (response.status >= 200 && response.status < 300) return response.data as T;
    throw this.httpError(response);
  }

  /** Builds the one-line error for a non-2xx response, preferring problem+json `title`/`detail`. */
  private httpError(response: AxiosResponse): DeployApiError {
    const body: unknown = response.data;
    const problem =
      body && typeof body === 'object' && !Array.isArray(body) ? (body as NonNullable<DeployApiError['problem']>) : undefined;
    const title = problem?.title || response.statusText || 'Request failed';
    let message = `${title} (HTTP ${response.status})`;
    if (problem?.detail) message += `: ${problem.detail}`;
    if (problem?.rule) message += ` [rule: ${problem.rule}]`;
    if (Array.isArray(problem?.errors) && problem.errors.length > 0) {
      message += ` - ${problem.errors.map(describeFieldError).join('; ')}`;
    }
    if (response.status === 413 && !problem?.detail) message += ': archive or file too large for the server';
    return new DeployApiError(this.redact(message.replace(/\s*[\r\n]+\s*/g, ' ')), response.status, problem);
  }

  /** Removes secrets from any text that could reach the terminal (the server might echo them). */
  private redact(text: string): string {
    let out = text;
    for (const secret of [this.config.token, this.config.registrationKey]) {
      if (secret) out = out.split(secret).join('[redacted]');
    }
    return out;
  }
}

/** Opens a local file as a lazily-read Blob so multipart bodies stream from disk instead of loading into memory. */
async function fileBlob(file: string, type: string): Promise<Blob> {
  const stat = await fs.stat(file).catch(() => null);
  if (!stat?.isFile()) throw new DeployApiError(`not a readable file: ${file}`);
  return openAsBlob(file, { type });
}

function progressAdapter(listener?: ProgressListener): ((e: AxiosProgressEvent) => void) | undefined {
  return listener ? (e) => listener(e.loaded, e.total) : undefined;
}

function describeFieldError(e: unknown): string {
  if (typeof e === 'string') return e;
  if (e && typeof e === 'object') {
    const { field, property, message } = e as Record<string, unknown>;
    const name = field ?? property;
    if (typeof message === 'string') return name ? `${String(name)}: ${message}` : message;
  }
  return JSON.stringify(e);
}

function networkMessage(err: unknown, apiUrl: string): string {
  if (err instanceof AxiosError) {
    if (err.code === 'ECONNABORTED' || err.code === 'ETIMEDOUT') return `request to ${apiUrl} timed out`;
    return `cannot reach ${apiUrl}: ${err.message || err.code || 'network error'}`;
  }
  return `request to ${apiUrl} failed: ${err instanceof Error ? err.message : String(err)}`;
}
