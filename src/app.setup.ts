import type { INestApplication } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import helmet from 'helmet';
import type { Logger as Pino } from 'pino';
import { addChatSecurityScheme, applyChatOperationScopes, chatSwaggerUiOptions, mountChatAuthorizationServer, swaggerAuthorizePopupPolicy } from './chat/auth/chat-openapi';
import { jsonBodyGate } from './common/http/body-parsing';
import { composeMiddleware } from './common/http/compose-middleware';
import { recordStaticHeaders, staticHeadersMiddleware } from './common/http/static-headers';
import { installLazyRequestLogger, requestLogMiddleware } from './common/logging/request-log';
import { httpMetricsMiddleware, metricsRoute } from './common/metrics/metrics-http';
import { MetricsRegistry } from './common/metrics/metrics.registry';
import { enrichOpenApiDocument } from './common/openapi/enrich-document';
import { collectRouteFacts } from './common/openapi/route-facts';
import { createValidationPipe } from './common/http/validation';
import type { AppConfig } from './config/app-config';
import { ConfigurationError } from './config/config-variable';
import { DEPLOY_AGENT_SCHEME, DEPLOY_OWNER_SCHEME } from './deploy/auth/deploy-auth.strategies';
import { siteServingMiddleware } from './deploy/sites/site-serving';
import { DataSource } from 'typeorm';
import { s3SiteHandler } from './deploy/sites/s3-site-serving';
import { OBJECT_BUCKET } from './common/storage/storage.module';
import type { S3Bucket } from './common/storage/s3.storage';
import { sitesOriginProblem } from './deploy/sites/sites.config';
import { EVAL_API_KEY_SCHEME, EVAL_SESSION_SCHEME } from './evaluation/auth/evaluation-auth';

/**
 * Builds the OpenAPI 3 document of every wing, with its security schemes (DESIGN.md, Examples: the contract is in
 * the repo — `openapi.json` is this document, committed).
 */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Atrium')
    .setDescription(
      'Self-hosted backend for AI digital staff. Errors are `application/problem+json` (RFC 9457). ' +
        'Paged lists take `page` (from 0), `size` (1..200), `sort` (`field,asc|desc`) and return `{ content, page, size, totalElements, totalPages }` (on the big chat lists a `totalElements` of 10,000 or more may be up to 2 s old: CHAT_LIST_COUNT_CACHE_*). ' +
        'Deployed sites are served at `/<contactId>/<directory_name>/` under `Content-Security-Policy: sandbox` (an opaque origin: their scripts cannot read this origin\'s storage), or from DEPLOY_SITES_ORIGIN when the operator sets one.',
    )
    .setVersion('0.1.0')
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'Agent token from POST /api/auth/register (`atr_<prefix>_<secret>`).' }, DEPLOY_AGENT_SCHEME)
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'Owner credential (DEPLOY_OWNER_TOKEN, or generated at first start).' }, DEPLOY_OWNER_SCHEME)
    .addApiKey({ type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'Evaluation API key: a named key from POST /api/auth/api-keys (`atrk_…`), or one of EVAL_API_KEYS (named env-1, env-2, …).' }, EVAL_API_KEY_SCHEME)
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'Evaluation session token from POST /api/auth/sign-in.' }, EVAL_SESSION_SCHEME)
    .addTag('operations', 'Liveness and readiness probes (issue 15); Prometheus metrics are at /metrics, outside this document (docs/metrics.md)')
    .addTag('deploy', 'Deployment gateway (deployment-gateway.md)')
    .addTag('deploy: admin', 'Deployment gateway, owner only')
    .addTag('evaluation', 'Evaluation platform (evaluation-platform.md)')
    .addTag('evaluation: model configurations', 'Evaluation platform: central model configuration')
    .addTag('evaluation: scenarios', 'Evaluation platform: scenarios and their versions')
    .addTag('evaluation: targets', 'Evaluation platform: agents under test and their channels')
    .build();
  addChatSecurityScheme(config, app);
  const document = SwaggerModule.createDocument(app, config);
  applyChatOperationScopes(document);
  // The document says what the validators, pipes and guards enforce (issue 22 item 2).
  enrichOpenApiDocument(document, collectRouteFacts(app));
  return document;
}

/**
 * Applies the request pipeline shared by `main.ts` and the e2e tests: request ids and logs, request metrics and
 * `/metrics` (unless METRICS_PORT moves it to a server of its own), published sites, security headers, validation,
 * Swagger UI at `/docs` and the document at `/docs-json`.
 */
export function configureApp(app: NestExpressApplication, config: AppConfig, logger: Pino): void {
  app.set('trust proxy', 'loopback');
  // Counted first, so every answer (sites, 404s, refusals) is in atrium_http_requests_total (issue 15 item 1). Then
  // every request gets an id (the caller's when sane: in the answer, its log lines and its problem body), its log
  // context and one completion line (request-log.ts). One Express layer for all of it (issue 14 item 1).
  const metrics = app.get(MetricsRegistry);
  installLazyRequestLogger((app.getHttpAdapter().getInstance() as { request: object }).request);
  const isProbe = (request: { url?: string }) => request.url === '/api/health' || (request.url ?? '').startsWith('/api/health/') || request.url === '/metrics';
  const front = [httpMetricsMiddleware(metrics), requestLogMiddleware(logger, { ignore: isProbe })];
  // `/metrics` on the app's own port: before the sites (its root segment is reserved for them).
  if (config.metrics.port === undefined || config.metrics.port === config.port) front.push(metricsRoute(metrics, config.metrics.token));
  app.use(composeMiddleware(...front));
  // The chat wing's built-in OAuth2 server (/oauth): before the sites (no namespace may shadow its JWKS) and the
  // body parsers (it reads its own form bodies).
  mountChatAuthorizationServer(app);
  // Sites are the users' own content: served before helmet's API policy (a CSP for JSON would break their pages),
  // in an opaque origin (CSP sandbox), or only on the operator's own sites host (issue 12 item 4).
  const sitesProblem = sitesOriginProblem(config.deploySites.origin, config.deploy.publicUrl);
  if (sitesProblem) throw new ConfigurationError(`Invalid configuration:\n  ${sitesProblem}`);
  // STORAGE_DRIVER=s3: sites are streamed from the bucket, each visible while its deployment row exists (issue 20 item 4).
  const bucket = app.get<S3Bucket | null>(OBJECT_BUCKET, { strict: false });
  const fileServer = bucket ? s3SiteHandler(bucket, app.get(DataSource)) : undefined;
  // helmet's policy is static: its headers are recorded once and replayed per request (static-headers.ts).
  const apiHeaders = recordStaticHeaders(helmet({ contentSecurityPolicy: { directives: { 'script-src': ["'self'", "'unsafe-inline'"], 'img-src': ["'self'", 'data:', 'https:'] } } }));
  // JSON bodies are read after authentication (the AuthGuard's last step), with each route's limit and a depth limit (body-parsing.ts).
  const jsonLimits = { defaultBytes: config.httpBodies.defaultJsonLimitBytes, documentBytes: config.jsonBodyLimitBytes, maxDepth: config.httpBodies.maxJsonDepth };
  // The gate keeps its own name (`jsonParser`): Nest mounts Express's JSON parser unless a middleware of that name is
  // mounted, so it stays a layer of its own.
  app.use(composeMiddleware(siteServingMiddleware(config.deploy.sitesDir, { sitesOrigin: config.deploySites.origin, fileServer, memoryCache: config.deploySites.memoryCache }), staticHeadersMiddleware(apiHeaders)));
  // Swagger UI's OAuth2 popup keeps its link to /docs (operator authorization-code flow only; chat-openapi.ts).
  const popupPolicy = swaggerAuthorizePopupPolicy(app);
  if (popupPolicy) app.use(popupPolicy);
  app.use(jsonBodyGate(jsonLimits));
  app.useGlobalPipes(createValidationPipe());
  const document = buildOpenApiDocument(app);
  SwaggerModule.setup('docs', app, document, {
    jsonDocumentUrl: 'docs-json',
    customSiteTitle: 'Atrium API',
    // Credentials entered under "Authorize" stay in localStorage only when the operator asks (DOCS_PERSIST_AUTHORIZATION).
    swaggerOptions: { ...chatSwaggerUiOptions(app, config.chatOperatorOAuth.scopes), persistAuthorization: config.docs.persistAuthorization },
  });
}
