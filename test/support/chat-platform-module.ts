import { Test, TestingModule } from '@nestjs/testing';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ChatPlatformModule } from '../../src/chat/platform/chat-platform.module';
import { createRootLogger, PinoNestLogger } from '../../src/common/logging/logger';
import { OutboundModule } from '../../src/common/outbound/outbound.service';
import { AppConfigModule } from '../../src/config/config.module';
import { buildDataSourceOptions } from '../../src/database/data-source-options';
import type { TestApp } from './test-app';

/**
 * The real ChatPlatformModule in a small Nest context on a started test app's database and configuration (the
 * schema comes from the app's migrations). Used by the chat platform port's e2e tests until the chat wing's
 * ChatModule imports the port; then `testApp.app.get(CHAT_PLATFORM)` serves the same providers.
 */
export async function startChatPlatformModule(testApp: TestApp): Promise<TestingModule> {
  const serverUrl = process.env.ATRIUM_TEST_DATABASE_URL;
  if (!serverUrl) throw new Error('ATRIUM_TEST_DATABASE_URL is not set: run the e2e tests through jest (global-setup).');
  const url = new URL(serverUrl);
  url.pathname = `/${testApp.database}`;
  const moduleRef = await Test.createTestingModule({
    imports: [
      AppConfigModule.forRoot(testApp.config),
      TypeOrmModule.forRoot({ ...buildDataSourceOptions(url.toString()), migrationsRun: false, autoLoadEntities: true, retryAttempts: 0 }),
      OutboundModule,
      ChatPlatformModule,
    ],
  })
    .setLogger(new PinoNestLogger(createRootLogger('silent')))
    .compile();
  await moduleRef.init();
  return moduleRef;
}
