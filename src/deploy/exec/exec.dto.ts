import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsNotEmpty, IsOptional, IsString, MaxLength, Min } from 'class-validator';

/** Body of `POST /api/exec` (deployment-gateway.md, Endpoints). */
export class ExecCommandDto {
  @ApiProperty({ description: 'Shell command, run with /bin/sh -c. Commands of the blocked list (and their variants) are refused with 403 naming the rule.', example: 'npm ci && npm run build', maxLength: 8192 })
  @IsString() @IsNotEmpty() @MaxLength(8192)
  command: string;

  @ApiPropertyOptional({
    description:
      'Working directory: relative to your namespace workspace (`<first DEPLOY_ALLOWED_DIRS root>/<namespace>`) or absolute inside it (403 outside it). ' +
      'It must exist and be a directory, each segment at most 255 bytes (400 otherwise). Defaults to the workspace.',
    maxLength: 4096,
  })
  @IsOptional() @IsString() @MaxLength(4096)
  cwd?: string;

  @ApiPropertyOptional({ description: 'Timeout in ms; default EXEC_DEFAULT_TIMEOUT_MS, at most EXEC_MAX_TIMEOUT_MS (400 above). On timeout the whole sandbox (every process the command started) is killed.', minimum: 1, example: 30000 })
  @IsOptional() @IsInt() @Min(1)
  timeoutMs?: number;
}

/** How the command ended. */
export class ExecResultDto {
  @ApiProperty({ description: 'Exit code; null when killed by a signal.', nullable: true, type: Number }) exitCode: number | null;
  @ApiProperty({ description: 'Signal that ended it (e.g. SIGKILL on timeout), or null.', nullable: true, type: String }) signal: string | null;
  @ApiProperty({ description: 'True when the timeout killed it.' }) timedOut: boolean;
  @ApiProperty({ description: 'Wall-clock run time in ms.' }) durationMs: number;
  @ApiProperty({ description: 'Standard output (UTF-8), at most EXEC_MAX_OUTPUT_BYTES.' }) stdout: string;
  @ApiProperty({ description: 'Standard error (UTF-8), at most EXEC_MAX_OUTPUT_BYTES.' }) stderr: string;
  @ApiProperty({ description: 'True when stdout was cut at the cap.' }) stdoutTruncated: boolean;
  @ApiProperty({ description: 'True when stderr was cut at the cap.' }) stderrTruncated: boolean;
}
