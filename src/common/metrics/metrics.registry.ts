import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, type CounterConfiguration, Gauge, type GaugeConfiguration, Histogram, type HistogramConfiguration, Registry } from 'prom-client';

/**
 * The app's Prometheus registry (issue 15 item 1; DESIGN.md, Operations). One per app instance (not prom-client's
 * global one), so several apps in one process (the e2e tests) don't collide. Holds the default Node process metrics
 * (`process_*`, `nodejs_*`); every wing declares its own families through {@link counter}, {@link histogram} and
 * {@link gauge} in its own folder, so the shared kernel names none of them.
 *
 * Labels must be bounded: route templates, queue names, outcomes and reasons from fixed lists — never ids, paths
 * or user text.
 */
@Injectable()
export class MetricsRegistry {
  readonly registry = new Registry();

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  /** The counter named `config.name`, created on first use (a second declaration returns the same one). */
  counter<L extends string>(config: Omit<CounterConfiguration<L>, 'registers'>): Counter<L> {
    return (this.registry.getSingleMetric(config.name) as Counter<L> | undefined) ?? new Counter({ ...config, registers: [this.registry] });
  }

  /** The histogram named `config.name` (buckets in the metric's unit, seconds for `_seconds`), created on first use. */
  histogram<L extends string>(config: Omit<HistogramConfiguration<L>, 'registers'>): Histogram<L> {
    return (this.registry.getSingleMetric(config.name) as Histogram<L> | undefined) ?? new Histogram({ ...config, registers: [this.registry] });
  }

  /** The gauge named `config.name` (`collect` may be async: it runs at each scrape), created on first use. */
  gauge<L extends string>(config: Omit<GaugeConfiguration<L>, 'registers'>): Gauge<L> {
    return (this.registry.getSingleMetric(config.name) as Gauge<L> | undefined) ?? new Gauge({ ...config, registers: [this.registry] });
  }

  /** The exposition text (Prometheus text format 0.0.4) and its content type. */
  async scrape(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
