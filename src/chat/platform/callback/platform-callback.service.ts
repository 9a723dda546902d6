import { BadRequestException, HttpException, Inject, Injectable, Logger, NotFoundException, ServiceUnavailableException, UnauthorizedException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../../../config/app-config';
import { WorkChatCorpEntity } from '../../corps/work-chat-corp.entity';
import { TENANT_SLUG_PATTERN } from '../../tenants/tenant-slug';
import { TenantsService } from '../../tenants/tenants.service';
import { ChatPlatformEvents } from '../chat-platform-events';
import {
  assertSignedAndFresh,
  CallbackRefusal,
  type CallbackOutcome,
  type CallbackSignatureParams,
  openEnvelope,
  parseCallbackXml,
  toCallbackOutcome,
} from './platform-callback.rules';

/** A corp that can receive callbacks: its callback token and EncodingAESKey are both set. */
type CallbackReceiver = WorkChatCorpEntity & { callbackToken: string; callbackAesKey: string };

/** What became of one event callback (for the controller's log and the tests' reading of the code). */
export type CallbackReceipt =
  | { handled: 'published'; type: 'external_contact.added' | 'message.received' }
  | { handled: 'ignored'; reason: string }
  | { handled: 'refused_by_listener'; type: 'external_contact.added' | 'message.received'; statuses: number[] };

/**
 * The platform's event callbacks of one corp (issue 6, "An inbound customer message (from the platform callback
 * endpoint …)"; docs/chat.md, "Platform callbacks"): WeCom's URL verification and encrypted event delivery, checked with
 * the corp's write-only callback token and EncodingAESKey, turned into ChatPlatformEvents events
 * (`external_contact.added`, `message.received`) for the listeners (contact sync, the inbound pipeline).
 *
 * The receiver is the corp of the tenant whose platform corp id is `workCorpId`, with both callback keys set; an
 * unknown or disabled tenant, an unknown corp or one without keys is one and the same 404, so the public address
 * tells nothing about which exists. Nothing secret is logged: not the token, the key, the signature, nor the
 * decrypted payload.
 */
@Injectable()
export class PlatformCallbackService {
  private readonly logger = new Logger(PlatformCallbackService.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly events: ChatPlatformEvents,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly tenants: TenantsService,
  ) {}

  /**
   * URL verification (the platform calls it when the callback URL is saved): checks the signature of `echostr` and
   * the timestamp, decrypts it and checks it is addressed to the corp.
   * @returns the plaintext of `echostr` (the platform expects it verbatim)
   * @throws NotFoundException (404) no receiver at this address; UnauthorizedException (401) bad signature or stale
   *   timestamp; BadRequestException (400) undecryptable or addressed to another corp
   */
  async verifyUrl(tenantId: string, workCorpId: string, params: CallbackSignatureParams, echostr: string): Promise<string> {
    const corp = await this.receiver(tenantId, workCorpId);
    return refusalsAsHttp(() => {
      assertSignedAndFresh(corp.callbackToken, params, echostr, Date.now(), this.config.chatCallback.maxSkewMs);
      return openEnvelope(corp.callbackAesKey, echostr, corp.workChatCorpId);
    });
  }

  /**
   * Finds the receiver of an event callback before its body is read. The tenant's status is read as the chat auth
   * check reads it (TenantsService.lookup, reused for CHAT_AUTH_TENANT_CACHE_TTL_MS): this public path is where
   * unauthenticated traffic lands.
   * @throws NotFoundException (404) unknown or disabled tenant, unknown corp, corp without callback keys
   */
  async receiver(tenantId: string, workCorpId: string): Promise<CallbackReceiver> {
    const noReceiver = () => new NotFoundException('No platform callback receiver at this address: the tenant has no corp with this platform corp id and callback keys.');
    if (!TENANT_SLUG_PATTERN.test(tenantId) || !/^[A-Za-z0-9_-]{1,64}$/.test(workCorpId)) throw noReceiver();
    const tenant = await this.tenants.lookup(tenantId);
    if (tenant?.status !== 'active') throw noReceiver();
    const corp = await this.dataSource.getRepository(WorkChatCorpEntity).findOneBy({ tenantId, workChatCorpId: workCorpId });
    if (!corp?.callbackToken || !corp.callbackAesKey) throw noReceiver();
    return corp as CallbackReceiver;
  }

  /**
   * An event callback: reads the body `<xml><ToUserName/><Encrypt/><AgentID/></xml>`, checks the signature of
   * `Encrypt` and the timestamp, decrypts it, checks it is addressed to the corp, maps the XML inside to an event and
   * publishes it on ChatPlatformEvents (which awaits every listener). Events of a disabled corp, and events and
   * message types Atrium does not handle, are acknowledged and ignored. A listener refusing the event for good
   * (a 4xx: e.g. a message of a customer Atrium does not know) is logged and acknowledged too — a redelivery would be
   * refused the same way.
   * @returns what became of it
   * @throws UnauthorizedException (401) bad signature or stale timestamp; BadRequestException (400) malformed body or
   *   event, undecryptable or addressed to another corp; ServiceUnavailableException (503) a listener failed for a
   *   reason that may pass (the platform, the database): the platform should redeliver
   */
  async receive(corp: CallbackReceiver, params: CallbackSignatureParams, body: string): Promise<CallbackReceipt> {
    const outcome = refusalsAsHttp((): CallbackOutcome => {
      const envelope = parseCallbackXml(body, 'The request body');
      const encrypted = envelope.get('Encrypt');
      if (!encrypted) throw new CallbackRefusal(400, 'The request body has no Encrypt element.');
      assertSignedAndFresh(corp.callbackToken, params, encrypted, Date.now(), this.config.chatCallback.maxSkewMs);
      const plaintext = openEnvelope(corp.callbackAesKey, encrypted, corp.workChatCorpId);
      const fields = parseCallbackXml(plaintext, 'The decrypted event');
      return toCallbackOutcome(fields, { tenantId: corp.tenantId, corpId: corp.id, platformCorpId: corp.workChatCorpId }, new Date());
    });
    if (outcome.kind === 'ignored') {
      this.logger.debug(`ignored a platform callback of corp ${corp.id} (tenant ${corp.tenantId}): ${outcome.reason}`);
      return { handled: 'ignored', reason: outcome.reason };
    }
    const { event } = outcome;
    if (!corp.enabled) {
      this.logger.debug(`ignored ${event.type} of disabled corp ${corp.id} (tenant ${corp.tenantId})`);
      return { handled: 'ignored', reason: 'corp disabled' };
    }
    try {
      await this.events.publish(event);
      return { handled: 'published', type: event.type };
    } catch (error) {
      const errors = error instanceof AggregateError ? error.errors : [error];
      const statuses = errors.map((each: unknown) => (each instanceof HttpException ? each.getStatus() : 500));
      if (statuses.every((status) => status >= 400 && status < 500)) {
        this.logger.warn(`a listener refused ${event.type} of corp ${corp.id} (tenant ${corp.tenantId}) with ${statuses.join(', ')}; acknowledged`);
        return { handled: 'refused_by_listener', type: event.type, statuses };
      }
      this.logger.warn(`${event.type} of corp ${corp.id} (tenant ${corp.tenantId}) could not be handled now (${statuses.join(', ')}); asking the platform to redeliver`);
      throw new ServiceUnavailableException('The event could not be handled now; the platform should deliver it again.');
    }
  }
}

/** Runs `work`, turning a {@link CallbackRefusal} into its HTTP exception (401 or 400). */
function refusalsAsHttp<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (!(error instanceof CallbackRefusal)) throw error;
    throw error.status === 401 ? new UnauthorizedException(error.message) : new BadRequestException(error.message);
  }
}
