import { Controller, Get, Logger, Param, ParseUUIDPipe, Query, Req, Res } from '@nestjs/common';
import { ApiBadRequestResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiProduces, ApiProperty, ApiResponse, ApiTags } from '@nestjs/swagger';
import { IsUUID } from 'class-validator';
import type { Request, Response } from 'express';
import { Authenticated } from '../../common/auth/auth.decorators';
import { EVAL_SECURITY_SCHEMES, EvaluationCredentialStrategy } from '../auth/evaluation-auth';
import { ReportFilterQueryDto, ReportQueryDto } from './report.dto';
import { ifNoneMatchHits } from './report-etag';
import { streamReport } from './report-stream';
import { ReportsService, ReportStream } from './reports.service';

/** Query of `GET /api/reports/compare`. */
export class CompareQueryDto {
  @ApiProperty({ description: 'First run (run_a).' })
  @IsUUID()
  run1: string;

  @ApiProperty({ description: 'Second run (run_b); deltas are run_b − run_a.' })
  @IsUUID()
  run2: string;
}

const NOT_MODIFIED = { status: 304, description: 'Not modified: the run is finished and `If-None-Match` named this representation\'s `ETag`.' };
const STREAMED =
  ' The body is streamed as it is read (cases in keyset batches); a failure after the first bytes aborts the connection, so a body that ends normally is whole. A finished run\'s report carries an `ETag`: `If-None-Match` with it answers 304.';

/** Reports (evaluation-platform.md, Endpoints: /api/reports), streamed (issue 23 item 3). */
@ApiTags('evaluation')
@Controller('api/reports')
@Authenticated(EvaluationCredentialStrategy, { securityScheme: EVAL_SECURITY_SCHEMES })
export class ReportsController {
  private readonly logger = new Logger(ReportsController.name);

  constructor(private readonly reports: ReportsService) {}

  // Declared before `:id` so "compare" is never taken for a run id.
  @Get('compare')
  @ApiOperation({
    operationId: 'compareRuns',
    summary: 'Compare two runs of one scenario',
    description: `Returns \`run_a\`, \`run_b\`, \`delta\` (\`pass_rate\`, \`passed_cases\`, \`passed_rules\`: run_b − run_a) and \`cases\` matched by case id, each with \`changed\`. 400 when the runs belong to different scenarios.${STREAMED}`,
  })
  @ApiOkResponse({ description: 'The comparison report.', schema: { type: 'object', additionalProperties: true } })
  @ApiResponse(NOT_MODIFIED)
  @ApiBadRequestResponse({ description: 'Runs of different scenarios, or bad ids.' })
  @ApiNotFoundResponse({ description: 'Unknown run.' })
  async compare(@Query() query: CompareQueryDto, @Req() request: Request, @Res() response: Response): Promise<void> {
    const { runA, runB, etag } = await this.reports.compareRuns(query.run1, query.run2);
    await this.send(request, response, etag, { 'Content-Type': 'application/json; charset=utf-8' }, () => this.reports.compareJson(runA, runB));
  }

  @Get(':id')
  @ApiOperation({
    operationId: 'getReport',
    summary: 'Report of a run (JSON)',
    description:
      'Header (scenario, `v<n>`, target, times), summary, and every case with its rules and reasons, in scenario order. Opt-in: `status`, `tag` and `rule_type` choose cases (header and summary stay the run\'s); `size` and `cursor` page the cases, and the report then ends with `next_cursor` (null on the last page).' +
      STREAMED,
  })
  @ApiOkResponse({ description: 'The single report.', schema: { type: 'object', additionalProperties: true } })
  @ApiResponse(NOT_MODIFIED)
  @ApiBadRequestResponse({ description: 'A bad filter, size or cursor.' })
  @ApiNotFoundResponse({ description: 'Unknown run.' })
  async report(@Param('id', ParseUUIDPipe) id: string, @Query() query: ReportQueryDto, @Req() request: Request, @Res() response: Response): Promise<void> {
    const { run, etag } = await this.reports.reportRun(id, 'json', query);
    const body = this.reports.reportJson(run, query); // refuses a bad page before anything is sent
    await this.send(request, response, etag, { 'Content-Type': 'application/json; charset=utf-8' }, () => body);
  }

  @Get(':run_id/markdown')
  @ApiProduces('text/markdown')
  @ApiOperation({
    operationId: 'getReportMarkdown',
    summary: 'Report of a run as a Markdown download',
    description: `Sent with \`Content-Disposition: attachment; filename=report-<scenario>-v<n>-<run id>.md\`. Takes the JSON report's filters (\`status\`, \`tag\`, \`rule_type\`).${STREAMED}`,
  })
  @ApiOkResponse({ description: 'Markdown file.', schema: { type: 'string' } })
  @ApiResponse(NOT_MODIFIED)
  @ApiBadRequestResponse({ description: 'A bad filter.' })
  @ApiNotFoundResponse({ description: 'Unknown run.' })
  async markdown(@Param('run_id', ParseUUIDPipe) runId: string, @Query() query: ReportFilterQueryDto, @Req() request: Request, @Res() response: Response): Promise<void> {
    const { run, etag } = await this.reports.reportRun(runId, 'markdown', query);
    const slug = run.scenarioName.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 40) || 'scenario';
    // Express spells the Content-Disposition (RFC 6266 quoting); it is sent only with the body, not with an error.
    response.attachment(`report-${slug}-v${run.scenarioVersion}-${runId}.md`);
    const disposition = String(response.getHeader('Content-Disposition'));
    response.removeHeader('Content-Disposition');
    response.removeHeader('Content-Type');
    await this.send(request, response, etag, { 'Content-Type': 'text/markdown; charset=utf-8', 'Content-Disposition': disposition }, () => this.reports.reportMarkdown(run, query));
  }

  /** 304 when `If-None-Match` names `etag`, else the streamed body with `headers` (and the ETag when there is one). */
  private async send(request: Request, response: Response, etag: string | null, headers: Record<string, string>, body: () => ReportStream): Promise<void> {
    if (etag) {
      response.setHeader('ETag', etag);
      response.setHeader('Cache-Control', 'private, no-cache');
      if (ifNoneMatchHits(request.headers['if-none-match'], etag)) {
        response.status(304).end();
        return;
      }
    }
    await streamReport(response, headers, body().chunks, (error) =>
      this.logger.error(`${request.method} ${request.originalUrl} failed after the first bytes; the connection was aborted: ${(error as Error)?.message ?? String(error)}`),
    );
  }
}
