import { Injectable } from '@nestjs/common';

/** One dependency's answer: up or not, with short, non-secret details (a reason, a figure). */
export interface ReadinessResult {
  up: boolean;
  details?: Record<string, string | number | boolean>;
}

/** A named readiness check; must answer within about a second and never throw (a throw counts as down). */
export type ReadinessCheck = () => Promise<ReadinessResult>;

/**
 * Where the kernel and the wings register what `/api/health/ready` checks (issue 15 item 3): the database, the
 * migrations, the job workers, the disk, the exec sandbox. The shared kernel names no wing: each registers its own
 * check at start-up (`onModuleInit`).
 */
@Injectable()
export class ReadinessRegistry {
  private readonly checks = new Map<string, ReadinessCheck>();

  /**
   * @param name the key in the probe's answer (`database`, `exec_sandbox`, …)
   * @throws Error when `name` is registered twice (two wings claiming one check is a wiring mistake)
   */
  register(name: string, check: ReadinessCheck): void {
    if (this.checks.has(name)) throw new Error(`Readiness check "${name}" is registered twice.`);
    this.checks.set(name, check);
  }

  /** The registered checks, in registration order. */
  entries(): [string, ReadinessCheck][] {
    return [...this.checks.entries()];
  }
}
