import { Controller, Get, HttpStatus } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { Public } from '../../common/auth/auth.decorators';
import { ProblemException } from '../../common/http/problem-details';
import { DatabaseHealth } from '../../database/database-health';

/** Health report. */
export class HealthDto {
  @ApiProperty({ description: '`ok` when every dependency answers.', enum: ['ok'] }) status: 'ok';
  @ApiProperty({ description: 'Database reachability.', enum: ['up', 'down'] }) database: 'up' | 'down';
}

/**
 * `GET /api/health` (deployment-gateway.md, Endpoints: no permission). Not audited: load balancers poll it every few
 * seconds and it changes nothing. The database probe is bounded (DATABASE_HEALTH_TIMEOUT_MS, issue 20 item 1), so the
 * answer comes within about that long even when PostgreSQL is stopped or frozen.
 */
@ApiTags('deploy')
@Controller('api')
export class HealthController {
  constructor(private readonly database: DatabaseHealth) {}

  @Get('health')
  @Public()
  @ApiOperation({ summary: 'Health check', description: 'No credential. 200 when the database answers; 503 problem+json with `database: "down"` when it does not answer within DATABASE_HEALTH_TIMEOUT_MS.' })
  @ApiOkResponse({ type: HealthDto })
  @ApiServiceUnavailableResponse({ description: 'The database does not answer (problem+json, `database: "down"`).' })
  async health(): Promise<HealthDto> {
    const databaseUp = await this.database.isUp();
    if (!databaseUp) throw new ProblemException(HttpStatus.SERVICE_UNAVAILABLE, 'The database does not answer.', { database: 'down' });
    return { status: 'ok', database: 'up' };
  }
}
