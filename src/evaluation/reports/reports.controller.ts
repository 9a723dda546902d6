import { Controller, Get, Header, Param, ParseUUIDPipe, Query, Res } from '@nestjs/common';
import { ApiBadRequestResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiProduces, ApiProperty, ApiTags } from '@nestjs/swagger';
import { IsUUID } from 'class-validator';
import type { Response } from 'express';
import { Authenticated } from '../../common/auth/auth.decorators';
import { EVAL_SECURITY_SCHEMES, EvaluationCredentialStrategy } from '../auth/evaluation-auth';
import { renderReportMarkdown } from './report-markdown';
import { ReportsService } from './reports.service';

/** Query of `GET /api/reports/compare`. */
export class CompareQueryDto {
  @ApiProperty({ description: 'First run (run_a).' })
  @IsUUID()
  run1: string;

  @ApiProperty({ description: 'Second run (run_b); deltas are run_b − run_a.' })
  @IsUUID()
  run2: string;
}

/** Reports (evaluation-platform.md, Endpoints: /api/reports). */
@ApiTags('evaluation')
@Controller('api/reports')
@Authenticated(EvaluationCredentialStrategy, { securityScheme: EVAL_SECURITY_SCHEMES })
export class ReportsController {
  constructor(private readonly reports: ReportsService) {}

  // Declared before `:id` so "compare" is never taken for a run id.
  @Get('compare')
  @ApiOperation({
    operationId: 'compareRuns',
    summary: 'Compare two runs of one scenario',
    description: 'Returns `run_a`, `run_b`, `delta` (`pass_rate`, `passed_cases`, `passed_rules`: run_b − run_a) and `cases` matched by case id, each with `changed`. 400 when the runs belong to different scenarios.',
  })
  @ApiOkResponse({ description: 'The comparison report.', schema: { type: 'object', additionalProperties: true } })
  @ApiBadRequestResponse({ description: 'Runs of different scenarios, or bad ids.' })
  compare(@Query() query: CompareQueryDto) {
    return this.reports.compare(query.run1, query.run2);
  }

  @Get(':id')
  @ApiOperation({ operationId: 'getReport', summary: 'Report of a run (JSON)', description: 'Header (scenario, `v<n>`, target, times), summary, and every case with its rules and reasons.' })
  @ApiOkResponse({ description: 'The single report.', schema: { type: 'object', additionalProperties: true } })
  @ApiNotFoundResponse({ description: 'Unknown run.' })
  report(@Param('id', ParseUUIDPipe) id: string) {
    return this.reports.report(id);
  }

  @Get(':run_id/markdown')
  @Header('Content-Type', 'text/markdown; charset=utf-8')
  @ApiProduces('text/markdown')
  @ApiOperation({ operationId: 'getReportMarkdown', summary: 'Report of a run as a Markdown download', description: 'Sent with `Content-Disposition: attachment; filename=report-<scenario>-v<n>-<run id>.md`.' })
  @ApiOkResponse({ description: 'Markdown file.', schema: { type: 'string' } })
  @ApiNotFoundResponse({ description: 'Unknown run.' })
  async markdown(@Param('run_id', ParseUUIDPipe) runId: string, @Res({ passthrough: true }) response: Response): Promise<string> {
    const report = await this.reports.report(runId);
    const slug = report.header.scenario_name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 40) || 'scenario';
    response.attachment(`report-${slug}-${report.header.version}-${runId}.md`);
    return renderReportMarkdown(report);
  }
}
