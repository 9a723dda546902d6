import { Controller, Get, Header, HttpStatus, Inject, Injectable, OnModuleInit, ServiceUnavailableException } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { HealthCheckService, type HealthCheckResult, type HealthIndicatorResult, HealthIndicatorService } from '@nestjs/terminus';
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { Public } from '../auth/auth.decorators';
import { describeThrown } from '../errors/describe-thrown';
import { ProblemException } from '../http/problem-details';
import { diskVerdict, freeBytesAt } from './disk-space';
import { type ReadinessCheck, ReadinessRegistry } from './readiness';

/** Longest one readiness check may take, ms; past it the check counts as down (a probe must answer quickly). */
export const READINESS_CHECK_TIMEOUT_MS = 2000;

/** `GET /api/health/live`. */
export class LiveDto {
  @ApiProperty({ description: 'Always `ok`: the process answers.', enum: ['ok'] }) status: 'ok';
}

/** `GET /api/health/ready` when every check is up (the terminus result). */
export class ReadyDto {
  @ApiProperty({ description: '`ok` when every check is up.', enum: ['ok'] }) status: 'ok';
  @ApiProperty({ description: 'The checks that are up, by name (`database`, `migrations`, `jobs`, `disk`, `exec_sandbox`), each `{ status: "up", …details }`.', type: 'object', additionalProperties: true })
  info: Record<string, unknown>;
  @ApiProperty({ description: 'The checks that are down (empty here).', type: 'object', additionalProperties: true }) error: Record<string, unknown>;
  @ApiProperty({ description: 'Every check, by name.', type: 'object', additionalProperties: true }) details: Record<string, unknown>;
}

/** `check`'s answer, down when it throws or takes longer than READINESS_CHECK_TIMEOUT_MS. Never throws. */
async function bounded(check: ReadinessCheck): Promise<{ up: boolean; details?: Record<string, string | number | boolean> }> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<{ up: boolean; details: Record<string, string> }>((resolve) => {
    timer = setTimeout(() => resolve({ up: false, details: { reason: `no answer within ${READINESS_CHECK_TIMEOUT_MS} ms` } }), READINESS_CHECK_TIMEOUT_MS);
  });
  try {
    return await Promise.race([check(), timeout]);
  } catch (error) {
    return { up: false, details: { reason: describeThrown(error).slice(0, 200) } };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Kubernetes-style probes (issue 15 item 3), built on `@nestjs/terminus`: `live` says the process answers (restart
 * it when not); `ready` runs every check of the {@link ReadinessRegistry} (take the instance out of the load balancer
 * when one is down). `GET /api/health` stays as the deployment gateway's spec defines it.
 */
@ApiTags('operations')
@Controller('api/health')
export class HealthProbesController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    private readonly registry: ReadinessRegistry,
  ) {}

  @Get('live')
  @Public()
  @Header('Cache-Control', 'no-store')
  @ApiOperation({ summary: 'Liveness probe', description: 'No credential. 200 while the process answers; checks no dependency (a database outage must not restart the app).' })
  @ApiOkResponse({ type: LiveDto })
  live(): LiveDto {
    return { status: 'ok' };
  }

  @Get('ready')
  @Public()
  @Header('Cache-Control', 'no-store')
  @ApiOperation({
    summary: 'Readiness probe',
    description:
      'No credential. 200 when the database answers, the migrations are applied, the job workers started, DATA_DIR has HEALTH_MIN_FREE_DISK_BYTES free and the exec sandbox is ready or knowingly off; 503 problem+json naming the checks that are down (`checks` has every check). Each check answers within 2 s.',
  })
  @ApiOkResponse({ type: ReadyDto })
  @ApiServiceUnavailableResponse({ description: 'A check is down (problem+json with `checks`).' })
  async ready(): Promise<HealthCheckResult> {
    const indicators = this.registry.entries().map(([name, check]) => async (): Promise<HealthIndicatorResult> => {
      const result = await bounded(check);
      const session = this.indicators.check(name);
      return result.up ? session.up(result.details ?? {}) : session.down(result.details ?? {});
    });
    try {
      return await this.health.check(indicators);
    } catch (error) {
      if (!(error instanceof ServiceUnavailableException)) throw error;
      const result = error.getResponse() as HealthCheckResult;
      const down = Object.keys(result.error ?? {});
      throw new ProblemException(HttpStatus.SERVICE_UNAVAILABLE, `Not ready: ${down.join(', ') || 'a check failed'}.`, { checks: result.details }, { 'Retry-After': '5' });
    }
  }
}

/** The nearest existing folder at or above `path` (DATA_DIR may not exist yet on a fresh machine). */
function existingAncestor(path: string): string {
  let current = path;
  while (!existsSync(current) && dirname(current) !== current) current = dirname(current);
  return current;
}

/** Registers `disk` (the shared core's own check): free space under DATA_DIR ≥ HEALTH_MIN_FREE_DISK_BYTES. */
@Injectable()
export class DiskReadiness implements OnModuleInit {
  constructor(
    private readonly registry: ReadinessRegistry,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.registry.register('disk', async () => diskVerdict(await freeBytesAt(existingAncestor(this.config.dataDir)), this.config.health.minFreeDiskBytes));
  }
}
