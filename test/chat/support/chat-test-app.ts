import { Controller, Get, Module, Param, ParseUUIDPipe, Put, Body, type Type } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { AppModule } from '../../../src/app.module';
import { ChatModule } from '../../../src/chat/chat.module';
import { configureApp } from '../../../src/app.setup';
import { ChatAuth, CurrentTenant } from '../../../src/chat/auth/chat-auth.decorators';
import { UpdateWorkChatCorpRelateRequest, WorkChatCorpRelateDto } from '../../../src/chat/corps/work-chat-corps.dto';
import { WorkChatCorpsService } from '../../../src/chat/corps/work-chat-corps.service';
import { OAuthClientsService } from '../../../src/chat/auth/oauth-clients.service';
import { TenantsService } from '../../../src/chat/tenants/tenants.service';
import { createRootLogger, PinoNestLogger } from '../../../src/common/logging/logger';
import { loadConfig } from '../../../src/app.config';
import { freePort } from '../../support/free-port';
import { TEST_OWNER_TOKEN, TEST_REGISTRATION_KEY, type TestApp } from '../../support/test-app';
import { createSuiteDatabase, dropDatabase } from '../../support/test-database';

/**
 * A route without a tenant segment, in the shape of the spec's `/api/v1/workChat/...` paths, declared with
 * `@ChatAuth({ tenant: 'token' })` over the real corps service: it lets the tests show that tenant-less routes act
 * for the token's one tenant and answer 404 for another tenant's ids. Test-only (not part of the API).
 */
@ApiExcludeController()
@Controller('api/v1/test-probe/corps')
@ChatAuth({ tenant: 'token' })
export class TenantFromTokenProbeController {
  constructor(private readonly corps: WorkChatCorpsService) {}

  @Get(':id')
  get(@CurrentTenant() tenantId: string, @Param('id', ParseUUIDPipe) id: string): Promise<WorkChatCorpRelateDto> {
    return this.corps.get(tenantId, id);
  }

  @Put(':id')
  update(@CurrentTenant() tenantId: string, @Param('id', ParseUUIDPipe) id: string, @Body() body: UpdateWorkChatCorpRelateRequest): Promise<WorkChatCorpRelateDto> {
    return this.corps.update(tenantId, id, body);
  }
}

/**
 * Like test/support/test-app.ts startTestApp (real AppModule, real HTTP, a fresh copy of the migrated template database, a temp DATA_DIR), with
 * extra controllers mounted next to the app's (the tenant-from-token probe).
 */
export async function startChatTestApp(env: Record<string, string> = {}, extraControllers: Type[] = [TenantFromTokenProbeController]): Promise<TestApp> {
  const { name: database, url: databaseUrl, serverUrl } = await createSuiteDatabase('atrium_chat');

  const dataDir = mkdtempSync(join(tmpdir(), 'atrium-chat-e2e-'));
  const port = await freePort();
  const config = loadConfig({
    DATA_DIR: dataDir,
    PORT: String(port),
    LOG_LEVEL: 'silent',
    DEPLOY_REGISTRATION_KEY: TEST_REGISTRATION_KEY,
    DEPLOY_OWNER_TOKEN: TEST_OWNER_TOKEN,
    // Test peers run on 127.0.0.1; the default (false) is shown by test/common/outbound.e2e-spec.ts.
    EVAL_MODEL_ALLOW_PRIVATE_NETWORKS: 'true',
    ...env,
  });
  const logger = createRootLogger(config.logLevel);
  @Module({ imports: [AppModule.forRoot(config, databaseUrl), ChatModule], controllers: extraControllers })
  class ChatTestModule {}
  const app = await NestFactory.create<NestExpressApplication>(ChatTestModule, { logger: new PinoNestLogger(logger), abortOnError: false });
  configureApp(app, config, logger);
  await app.listen(port, '127.0.0.1');
  return {
    app,
    baseUrl: `http://127.0.0.1:${port}`,
    config,
    dataDir,
    database,
    close: async () => {
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
      await dropDatabase(serverUrl, database);
    },
  };
}

/** Creates a tenant directly through the app's service (factories: `newTenant()`), returning its id. */
export async function newTenant(testApp: TestApp, id: string, name = `Tenant ${id}`): Promise<string> {
  await testApp.app.get(TenantsService).create({ id, name });
  return id;
}

/** Creates an OAuth2 client of the built-in server through the app's service; returns id and secret. */
export async function newClient(testApp: TestApp, input: { tenantId?: string; platformAdmin?: boolean; scopes?: string[] }): Promise<{ clientId: string; clientSecret: string }> {
  const created = await testApp.app.get(OAuthClientsService).create(input);
  return { clientId: created.clientId, clientSecret: created.clientSecret };
}

/**
 * Gets an access token from the built-in authorization server over real HTTP (client-credentials grant, HTTP Basic
 * client authentication).
 * @returns the token response body (`access_token`, `scope`, `expires_in`, …)
 */
export async function builtInToken(baseUrl: string, client: { clientId: string; clientSecret: string }, scope?: string) {
  const response = await request(baseUrl)
    .post('/oauth/token')
    .auth(client.clientId, client.clientSecret)
    .type('form')
    .send({ grant_type: 'client_credentials', ...(scope !== undefined ? { scope } : {}) });
  if (response.status !== 200) throw new Error(`token request failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body as { access_token: string; token_type: string; expires_in: number; scope?: string };
}
