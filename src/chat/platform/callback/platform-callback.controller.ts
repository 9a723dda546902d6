import { Controller, Get, Header, HttpCode, Inject, Param, Post, Query, Req } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBody,
  ApiConsumes,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiPayloadTooLargeResponse,
  ApiProduces,
  ApiServiceUnavailableResponse,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import type { Request } from 'express';
import { Public } from '../../../common/auth/auth.decorators';
import { APP_CONFIG, type AppConfig } from '../../../config/app-config';
import { readCallbackBody } from './callback-body';
import { PlatformCallbackQuery, PlatformCallbackVerifyQuery, toSignatureParams } from './platform-callback.dto';
import { PlatformCallbackService } from './platform-callback.service';

const CALLED_BY_PLATFORM = 'Called by the chat platform (WeCom-style callbacks), not by API clients: no OAuth2 token; the request is authenticated by `msg_signature`, made with the corp\'s callback token (401 when it or the timestamp is wrong, without saying which).';
const TENANT_PARAM = ApiParam({ name: 'tenant', description: 'Tenant id (slug).', example: 'acme', schema: { type: 'string', pattern: '^[a-z][a-z0-9-]{1,62}$' } });
const CORP_PARAM = ApiParam({ name: 'workCorpId', description: 'The platform\'s corp id of the tenant\'s corp (workChatCorpId); the corp must have callbackToken and callbackAesKey.', example: 'ww3f9c2a7d1e0b4c5a' });
const NOT_FOUND = ApiNotFoundResponse({ description: 'Unknown or disabled tenant, no corp with this platform corp id in the tenant, or the corp has no callback keys (problem+json).' });
const UNAUTHORIZED = ApiUnauthorizedResponse({ description: 'The signature is wrong, or the timestamp is further than CHAT_CALLBACK_MAX_SKEW_MS from now (problem+json).' });

/**
 * The chat platform's event callbacks of a corp (issue 6, "An inbound customer message (from the platform callback
 * endpoint, or the simulator)"; docs/chat.md, "Platform callbacks"): `GET` is the platform's URL verification, `POST`
 * delivers an encrypted event (a customer added a staff member, a customer's message), published on
 * ChatPlatformEvents. Public: the platform signs each request with the corp's callback token instead.
 * Answers `text/plain` (the echo, or `success`); errors are problem+json.
 */
@ApiTags('chat: platform callbacks')
@Controller('api/:tenant/v1/workChat/callback/:workCorpId')
export class PlatformCallbackController {
  constructor(
    private readonly callbacks: PlatformCallbackService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get()
  @Public()
  @Header('Content-Type', 'text/plain; charset=utf-8')
  @Header('Cache-Control', 'no-store')
  @ApiOperation({
    operationId: 'verifyWorkChatCallbackUrl',
    summary: 'Platform callback URL verification',
    description: `${CALLED_BY_PLATFORM} When the callback URL is saved on the platform, it sends an encrypted \`echostr\`; the answer is its plaintext, once the signature checks out and the decrypted receiver id is the corp's platform corp id.`,
  })
  @TENANT_PARAM
  @CORP_PARAM
  @ApiProduces('text/plain')
  @ApiOkResponse({ description: 'The decrypted echostr (text/plain).', schema: { type: 'string' } })
  @ApiBadRequestResponse({ description: 'Missing query parameters, or echostr cannot be decrypted or is addressed to another corp (problem+json).' })
  @UNAUTHORIZED
  @NOT_FOUND
  verify(@Param('tenant') tenant: string, @Param('workCorpId') workCorpId: string, @Query() query: PlatformCallbackVerifyQuery): Promise<string> {
    return this.callbacks.verifyUrl(tenant, workCorpId, toSignatureParams(query), query.echostr);
  }

  @Post()
  @Public()
  @HttpCode(200)
  @Header('Content-Type', 'text/plain; charset=utf-8')
  @ApiOperation({
    operationId: 'receiveWorkChatCallback',
    summary: 'Platform event callback',
    description:
      `${CALLED_BY_PLATFORM} The body is \`<xml><ToUserName/><Encrypt/><AgentID/></xml>\`; \`Encrypt\` holds the event's XML, encrypted with the corp's EncodingAESKey. ` +
      'Handled: a customer adding a staff member (`change_external_contact`/`add_external_contact`: the contact is fetched from the platform and stored) and customer messages ' +
      '(`MsgType` text, image, video, file, emotion, voice, link, location: handed to the inbound pipeline; a redelivered `MsgId` is handled once). ' +
      'Other events and message types, and events of a disabled corp, are acknowledged and ignored. The answer is `success` (text/plain) once the event is handled. ' +
      'Body larger than CHAT_CALLBACK_MAX_BYTES → 413.',
  })
  @TENANT_PARAM
  @CORP_PARAM
  @ApiConsumes('text/xml', 'application/xml')
  @ApiBody({ description: 'The encrypted envelope.', schema: { type: 'string', example: '<xml><ToUserName><![CDATA[ww3f9c2a7d1e0b4c5a]]></ToUserName><Encrypt><![CDATA[…base64…]]></Encrypt><AgentID><![CDATA[1000002]]></AgentID></xml>' } })
  @ApiProduces('text/plain')
  @ApiOkResponse({ description: '`success` (text/plain): the event was handled or deliberately ignored.', schema: { type: 'string', example: 'success' } })
  @ApiBadRequestResponse({ description: 'Missing query parameters, malformed XML (outside or inside), an undecryptable payload, one addressed to another corp, or an event missing required fields (problem+json).' })
  @UNAUTHORIZED
  @NOT_FOUND
  @ApiPayloadTooLargeResponse({ description: 'The body is larger than CHAT_CALLBACK_MAX_BYTES (problem+json).' })
  @ApiServiceUnavailableResponse({ description: 'The event could not be handled now (the platform or the database failed); the platform should deliver it again (problem+json).' })
  async receive(@Param('tenant') tenant: string, @Param('workCorpId') workCorpId: string, @Query() query: PlatformCallbackQuery, @Req() request: Request): Promise<string> {
    const corp = await this.callbacks.receiver(tenant, workCorpId);
    const body = await readCallbackBody(request, this.config.chatCallback.maxBytes);
    await this.callbacks.receive(corp, toSignatureParams(query), body);
    return 'success';
  }
}
