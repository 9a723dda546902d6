import { Global, Module } from '@nestjs/common';
import { MetricsPortServer } from './metrics-http';
import { MetricsRegistry } from './metrics.registry';

/**
 * Makes {@link MetricsRegistry} one instance visible to every wing (global; imported by AppModule and by the job
 * runner's module), and serves METRICS_PORT when it is a port of its own (issue 15 item 1).
 */
@Global()
@Module({ providers: [MetricsRegistry, MetricsPortServer], exports: [MetricsRegistry] })
export class MetricsModule {}
