import { Controller, Get, HttpStatus } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Public } from '../../common/auth/auth.decorators';
import { ProblemException } from '../../common/http/problem-details';

/** Health report. */
export class HealthDto {
  @ApiProperty({ description: '`ok` when every dependency answers.', enum: ['ok'] }) status: 'ok';
  @ApiProperty({ description: 'Database reachability.', enum: ['up', 'down'] }) database: 'up' | 'down';
}

/**
 * `GET /api/health` (deployment-gateway.md, Endpoints: no permission). Not audited: load balancers poll it every few
 * seconds and it changes nothing.
 */
@ApiTags('deploy')
@Controller('api')
export class HealthController {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  @Get('health')
  @Public()
  @ApiOperation({ summary: 'Health check', description: 'No credential. 200 when the database answers; 503 problem+json with `database: "down"` when not.' })
  @ApiOkResponse({ type: HealthDto })
  @ApiServiceUnavailableResponse({ description: 'The database does not answer (problem+json, `database: "down"`).' })
  async health(): Promise<HealthDto> {
    const databaseUp = await this.dataSource
      .query('SELECT 1')
      .then(() => true)
      .catch(() => false);
    if (!databaseUp) throw new ProblemException(HttpStatus.SERVICE_UNAVAILABLE, 'The database does not answer.', { database: 'down' });
    return { status: 'ok', database: 'up' };
  }
}
