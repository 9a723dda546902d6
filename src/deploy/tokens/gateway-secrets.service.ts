import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { randomSecret, secretsEqual, sha256Hex } from '../../common/crypto/secrets';
import { GatewaySecretEntity, GatewaySecretName } from './gateway-secret.entity';
import { ClusterEvents } from '../../common/cluster/cluster-events';

/** ClusterEvents topic of the gateway's stored secret hashes (key: the secret's name). */
export const GATEWAY_SECRET_EVENTS = 'deploy-gateway-secret';

/**
 * The owner credential and the registration key (deployment-gateway.md, Authentication). A configured value
 * (`DEPLOY_OWNER_TOKEN`, `DEPLOY_REGISTRATION_KEY`) replaces the stored hash at start; when none is configured
 * and none is stored, one is generated, its hash stored and the value printed once on stderr, so a fresh
 * install is never open and the secret is never kept in clear.
 */
@Injectable()
export class GatewaySecretsService implements OnApplicationBootstrap {
  private readonly logger = new Logger(GatewaySecretsService.name);
  private readonly hashes = new Map<GatewaySecretName, string>();

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly events: ClusterEvents,
  ) {
    // An instance started with a new DEPLOY_OWNER_TOKEN (or key) replaces the stored hash: every other instance
    // re-reads it at once (issue 20 item 5), instead of accepting the old value until its own restart.
    events.subscribe(GATEWAY_SECRET_EVENTS, (name) => void this.reload(name as GatewaySecretName), () => {
      for (const name of [...this.hashes.keys()]) void this.reload(name);
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.ensure('owner-token', this.config.deploy.ownerToken, 'DEPLOY_OWNER_TOKEN');
    await this.ensure('registration-key', this.config.deploy.registrationKey, 'DEPLOY_REGISTRATION_KEY');
  }

  /** Re-reads one stored hash (another instance changed it); a failed read keeps the one known (logged). */
  private async reload(name: GatewaySecretName): Promise<void> {
    try {
      const stored = await this.dataSource.getRepository(GatewaySecretEntity).findOneBy({ name });
      if (stored) this.hashes.set(name, stored.secretHash);
    } catch (error) {
      this.logger.warn(`Could not re-read the ${name} hash: ${(error as Error).message}`);
    }
  }

  /** True when `given` is the named secret (constant-time comparison of SHA-256 digests). */
  matches(name: GatewaySecretName, given: string): boolean {
    const hash = this.hashes.get(name);
    return hash !== undefined && secretsEqual(sha256Hex(given), hash);
  }

  private async ensure(name: GatewaySecretName, configured: string | undefined, variable: string): Promise<void> {
    const repository = this.dataSource.getRepository(GatewaySecretEntity);
    if (configured) {
      const before = await repository.findOneBy({ name });
      await repository.upsert({ name, secretHash: sha256Hex(configured) }, ['name']);
      if (before && before.secretHash !== sha256Hex(configured)) await this.events.publish(GATEWAY_SECRET_EVENTS, name);
    } else {
      const generated = randomSecret(32);
      // ON CONFLICT DO NOTHING: when several instances start at once only the first one's secret is kept and shown.
      const result = await repository
        .createQueryBuilder()
        .insert()
        .values({ name, secretHash: sha256Hex(generated) })
        .orIgnore()
        .returning(['name'])
        .execute();
      if (result.raw.length > 0) {
        process.stderr.write(
          `\n  Atrium generated the deployment gateway's ${name} (shown only now; set ${variable} to choose your own):\n\n    ${generated}\n\n`,
        );
        this.logger.warn(`Generated ${name}; it was printed once on stderr. Set ${variable} to replace it.`);
      }
    }
    const stored = await repository.findOneByOrFail({ name });
    this.hashes.set(name, stored.secretHash);
  }
}
