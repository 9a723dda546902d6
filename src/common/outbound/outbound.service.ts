import { Global, Inject, Injectable, Module, type OnApplicationBootstrap, type OnModuleDestroy, Optional } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { InjectDataSource } from '@nestjs/typeorm';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { normaliseAddress } from './address-policy';
import { OutboundClient, type OutboundUseSettings, type ProtectedTargets } from './outbound-client';

/**
 * The outbound HTTP clients of every wing (issue 19 item 1; DESIGN.md, Trust boundaries). A wing asks for the client
 * of its use with its own settings ({@link OutboundUseSettings}, read from its `*-outbound.config.ts`); this service
 * adds what no call may reach, whatever the switches:
 * - the app's own ports on any local address: PORT, and every port its HTTP server actually listens on;
 * - the embedded PostgreSQL's port (EMBEDDED_POSTGRES_PORT) on any local address;
 * - the database's host:port from its connection URL (DATABASE_URL), and that port on any local address when the
 *   database runs on this machine.
 * Local addresses are loopback, unspecified and this machine's interface addresses.
 */
@Injectable()
export class OutboundHttp implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly clients = new Map<string, OutboundClient>();
  private readonly listeningPorts = new Set<number>();
  private readonly targets: () => ProtectedTargets;
  /** Makes `targets` build a new object (a port was added). */
  private readonly forgetTargets: () => void;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    @InjectDataSource() dataSource: DataSource,
    @Optional() private readonly adapterHost?: HttpAdapterHost,
  ) {
    const database = databaseEndpoint(dataSource.options as { url?: string; host?: string; port?: number });
    const localAddresses = Object.values(networkInterfaces())
      .flatMap((entries) => entries ?? [])
      .map((entry) => entry.address);
    const databaseIsLocal = database !== null && (/^localhost\.?$/i.test(database.host) || localAddresses.some((address) => normaliseAddress(address) === normaliseAddress(database.host)) || isLoopbackText(database.host));
    const fixedPorts = [config.port, config.embeddedPostgresPort, ...(databaseIsLocal && database ? [database.port] : [])].filter((port) => port > 0);
    // One object until a new listening port is recorded: clients keep their address decisions while it holds.
    let current: ProtectedTargets | undefined;
    this.targets = () =>
      (current ??= Object.freeze({
        protectedLocalPorts: [...new Set([...fixedPorts, ...this.listeningPorts])],
        protectedEndpoints: database ? [database] : [],
        localAddresses,
      }));
    this.forgetTargets = () => (current = undefined);
  }

  /** Records the ports the HTTP server listens on (known only once it listens; a test app picks a free one). */
  onApplicationBootstrap(): void {
    const server = this.adapterHost?.httpAdapter?.getHttpServer() as import('node:http').Server | undefined;
    if (!server || typeof server.on !== 'function') return;
    const record = () => {
      const address = server.address() as AddressInfo | string | null;
      if (address && typeof address === 'object' && !this.listeningPorts.has(address.port)) {
        this.listeningPorts.add(address.port);
        this.forgetTargets();
      }
    };
    record();
    server.on('listening', record);
  }

  /**
   * The client of one use, created on first call with `settings` (the same use name always gives the same client;
   * its settings are fixed for the process, like the configuration they come from).
   */
  client(settings: OutboundUseSettings): OutboundClient {
    let client = this.clients.get(settings.use);
    if (!client) {
      client = new OutboundClient(settings, this.targets);
      this.clients.set(settings.use, client);
    }
    return client;
  }

  /** What no call may reach right now (for write-time URL checks). */
  protectedTargets(): ProtectedTargets {
    return this.targets();
  }

  onModuleDestroy(): void {
    for (const client of this.clients.values()) client.close();
  }
}

/** The global module that provides {@link OutboundHttp}; imported once by AppModule. */
@Global()
@Module({ providers: [OutboundHttp], exports: [OutboundHttp] })
export class OutboundModule {}

function databaseEndpoint(options: { url?: string; host?: string; port?: number }): { host: string; port: number } | null {
  try {
    if (options.url) {
      const url = new URL(options.url);
      return { host: url.hostname.replace(/^\[(.*)\]$/, '$1'), port: Number(url.port) || 5432 };
    }
  } catch {
    return null;
  }
  return options.host ? { host: options.host, port: options.port ?? 5432 } : null;
}

function isLoopbackText(host: string): boolean {
  const address = normaliseAddress(host);
  return address !== null && (address.startsWith('127.') || address === '::1');
}
