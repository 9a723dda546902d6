import { Global, Injectable, Logger, Module, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Client, type ClientConfig } from 'pg';
import { DataSource, type EntityManager } from 'typeorm';
import type { PostgresDataSourceOptions } from 'typeorm/driver/postgres/PostgresDataSourceOptions';

/** The one PostgreSQL channel every instance listens on. */
export const CLUSTER_CHANNEL = 'atrium_cache';
/** Reconnect delays of the listener connection, ms: doubling from the first to the last. */
export const RECONNECT_DELAYS_MS = { first: 250, max: 5_000 } as const;

/** A cache's handlers: one key changed somewhere; or everything may have (the listener was down). */
interface Subscription {
  onChange: (key: string) => void;
  onReset: () => void;
}

/** The payload of a notification: a topic (which cache) and a key (which entry). */
export interface ClusterEvent {
  topic: string;
  key: string;
}

/** Parses a notification payload. @returns the event, or undefined for a malformed one (ignored) */
export function parseClusterEvent(payload: string | undefined): ClusterEvent | undefined {
  if (!payload) return undefined;
  try {
    const value = JSON.parse(payload) as Partial<ClusterEvent>;
    return typeof value.topic === 'string' && typeof value.key === 'string' ? { topic: value.topic, key: value.key } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Cross-instance cache invalidation over PostgreSQL LISTEN/NOTIFY (issue 20 item 5). Each process keeps ONE listener
 * connection (outside the pools) on {@link CLUSTER_CHANNEL}; a cache subscribes a topic, and a change anywhere is
 * published with `pg_notify` (inside the writer's transaction when it passes its manager, so it is delivered only if
 * the change commits). Every instance, the publisher included, drops the entry within milliseconds.
 *
 * Missed notifications: while the listener is down (database restart, network cut), nothing arrives. So the
 * listener reconnects by itself (250 ms doubling to 5 s), and every subscriber's `onReset` runs when it goes down and
 * again once it is back: caches are emptied rather than trusted. In between, a cache filled during the outage is
 * bounded by its own TTL, which is each cache's documented staleness bound.
 */
@Injectable()
export class ClusterEvents implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(ClusterEvents.name);
  private readonly subscriptions = new Map<string, Subscription[]>();
  private client?: Client;
  private stopped = false;
  private retryTimer?: NodeJS.Timeout;
  private delayMs: number = RECONNECT_DELAYS_MS.first;
  /** True while the listener connection is up and LISTENing. */
  listening = false;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Registers a cache for `topic` (call it from a constructor, before the app starts).
   * @param onChange drops the entry `key`
   * @param onReset drops every entry
   */
  subscribe(topic: string, onChange: (key: string) => void, onReset: () => void): void {
    const list = this.subscriptions.get(topic) ?? [];
    list.push({ onChange, onReset });
    this.subscriptions.set(topic, list);
  }

  /**
   * Tells every instance that `key` of `topic` changed. Pass the writer's transaction manager so the notification
   * goes out only when it commits; without one it goes out at once.
   * @throws the database error (a caller that can't fail logs it: the other instances' TTL still bounds staleness)
   */
  async publish(topic: string, key: string, manager?: EntityManager): Promise<void> {
    this.deliver({ topic, key });
    await (manager ?? this.dataSource).query('SELECT pg_notify($1, $2)', [CLUSTER_CHANNEL, JSON.stringify({ topic, key })]);
  }

  /** {@link publish} for callers that can't wait or fail: errors are logged. */
  publishSoon(topic: string, key: string): void {
    this.publish(topic, key).catch((error: Error) => this.logger.warn(`Could not announce a ${topic} change to other instances: ${error.message}`));
  }

  /** Connects the listener (a failure is retried in the background: the app starts anyway). */
  async onApplicationBootstrap(): Promise<void> {
    await this.connect();
  }

  /** Closes the listener connection and stops reconnecting. */
  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    const client = this.client;
    this.client = undefined;
    this.listening = false;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const client = new Client({ ...clientConfigOf(this.dataSource), keepAlive: true, application_name: 'atrium-cluster-events' });
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client));
    client.on('notification', (message) => {
      if (message.channel !== CLUSTER_CHANNEL) return;
      const event = parseClusterEvent(message.payload);
      if (event) this.deliver(event);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${CLUSTER_CHANNEL}`);
    } catch (error) {
      client.removeAllListeners('end');
      await client.end().catch(() => undefined);
      this.lost(client, error as Error);
      return;
    }
    if (this.stopped) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    this.listening = true;
    this.delayMs = RECONNECT_DELAYS_MS.first;
    // Whatever changed while nobody listened is unknown: start from empty caches.
    this.resetAll();
  }

  /** The listener went away: empty the caches and reconnect after a growing delay. */
  private lost(client: Client, error?: Error): void {
    if (this.client !== undefined && this.client !== client) return;
    const wasListening = this.listening;
    this.client = undefined;
    this.listening = false;
    if (this.stopped || this.retryTimer) return;
    if (wasListening) {
      this.logger.warn(`Cache invalidation listener lost${error ? `: ${error.message}` : ''}; reconnecting`);
      this.resetAll();
    }
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      void this.connect();
    }, this.delayMs);
    this.retryTimer.unref();
    this.delayMs = Math.min(this.delayMs * 2, RECONNECT_DELAYS_MS.max);
  }

  private deliver(event: ClusterEvent): void {
    for (const subscription of this.subscriptions.get(event.topic) ?? []) subscription.onChange(event.key);
  }

  private resetAll(): void {
    for (const list of this.subscriptions.values()) for (const subscription of list) subscription.onReset();
  }
}

/** The pg client settings of the app's own database (the TypeORM data source's url or fields). */
function clientConfigOf(dataSource: DataSource): ClientConfig {
  const options = dataSource.options as PostgresDataSourceOptions;
  const connectTimeout = (options.extra as { connectionTimeoutMillis?: number } | undefined)?.connectionTimeoutMillis ?? 10_000;
  if (options.url) return { connectionString: options.url, connectionTimeoutMillis: connectTimeout };
  return {
    host: options.host,
    port: options.port,
    user: options.username,
    password: typeof options.password === 'string' ? options.password : undefined,
    database: options.database,
    connectionTimeoutMillis: connectTimeout,
  };
}

/** Provides {@link ClusterEvents} to every module (one listener connection per process). */
@Global()
@Module({ providers: [ClusterEvents], exports: [ClusterEvents] })
export class ClusterEventsModule {}
