import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { Authenticated } from '../../common/auth/auth.decorators';
import { EVAL_SECURITY_SCHEMES, EvaluationCredentialStrategy } from '../auth/evaluation-auth';
import { DashboardService, DashboardStats } from './dashboard.service';

/** Query of `GET /api/stats/dashboard`. */
export class DashboardQueryDto {
  @ApiPropertyOptional({ description: 'Window of the trend and slowest-target figures, in days.', default: 30, minimum: 1, maximum: 365 })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(365)
  days: number = 30;
}

/** Dashboard statistics (evaluation-platform.md, Endpoints). */
@ApiTags('evaluation')
@Controller('api/stats')
@Authenticated(EvaluationCredentialStrategy, { securityScheme: EVAL_SECURITY_SCHEMES })
export class DashboardController {
  constructor(private readonly dashboard: DashboardService) {}

  @Get('dashboard')
  @ApiOperation({
    operationId: 'getDashboardStats',
    summary: 'Dashboard statistics',
    description: 'Counts of scenarios and targets, runs by status, mean pass rate per UTC day of completed runs, and the slowest targets by mean p95 latency; all SQL aggregates.',
  })
  @ApiOkResponse({ description: '`{ scenarios, targets, runs_by_status, pass_rate_trend: [{ day, runs, mean_pass_rate }], slowest_targets: [{ target_id, target_name, runs, mean_latency_p95_ms }], window_days }`', schema: { type: 'object', additionalProperties: true } })
  stats(@Query() query: DashboardQueryDto): Promise<DashboardStats> {
    return this.dashboard.stats(query.days);
  }
}
