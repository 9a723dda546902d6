import { Global, Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { DiskReadiness, HealthProbesController } from './health-probes.controller';
import { ReadinessRegistry } from './readiness';

/**
 * `/api/health/live` and `/api/health/ready` (issue 15 item 3), and the global {@link ReadinessRegistry} the kernel
 * and the wings register their checks into. Terminus logs nothing: a failed probe is an answer, not an error.
 */
@Global()
@Module({
  imports: [TerminusModule.forRoot({ logger: false })],
  controllers: [HealthProbesController],
  providers: [ReadinessRegistry, DiskReadiness],
  exports: [ReadinessRegistry],
})
export class HealthProbesModule {}
