import { Controller, Get, Inject, NotFoundException, Param, Req, Res } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiParam, ApiProduces, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Request, Response } from 'express';
import { DataSource } from 'typeorm';
import { Public } from '../../common/auth/auth.decorators';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { SimContactWayEntity } from '../platform/simulator/sim-contact-way.entity';
import { renderSimulatedQrSvg } from './simulator-qr.svg';

/** A QR code path segment the simulator hands out (letters and digits). */
const QR_CODE_SEGMENT = /^[A-Za-z0-9]{1,64}$/;

/** What a simulated QR code stands for (`Accept: application/json`). */
export class SimulatedQrCodeDto {
  @ApiProperty({ description: 'Always true: the code exists only on the built-in chat platform simulator.', example: true }) simulated: boolean;
  @ApiProperty({ description: 'contactWay (customers add a staff user) or groupWay (customers join a group chat).', enum: ['contactWay', 'groupWay'] }) kind: 'contactWay' | 'groupWay';
  @ApiProperty({ description: 'The platform config id of the way (what the simulator\'s customer injection takes as contactWayConfigId).' }) configId: string;
  @ApiProperty({ description: 'Platform scene: 1 = mini-program button, 2 = QR code.', enum: [1, 2] }) scene: number;
  @ApiProperty({ description: 'The scene parameter echoed when a customer comes through the way.', type: String, nullable: true }) state: string | null;
  @ApiPropertyOptional({ description: 'Contact ways: platform userids of the staff users customers add.', type: [String] }) workChatUserIds?: string[];
  @ApiPropertyOptional({ description: 'Group ways: platform ids of the group chats customers join.', type: [String] }) chatIds?: string[];
  @ApiProperty({ description: 'How to "scan" the code in a test or demo.' }) hint: string;
}

/**
 * The chat platform simulator's QR code links (issue 5: with the simulator, contact way and group way QR codes point
 * to `GET /api/chat-simulator/qr/{code}`). Public, like a real platform's QR image URL. Answers an SVG picture
 * standing for the code, or with `Accept: application/json` what the code stands for. 404 when the simulator is
 * not the configured platform (CHAT_PLATFORM_MODE) or the code is unknown.
 */
@ApiTags('chat: simulator')
@Controller('api/chat-simulator/qr')
export class SimulatorQrController {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get(':code')
  @Public()
  @ApiOperation({
    operationId: 'getSimulatedQrCode',
    summary: 'A QR code of the chat platform simulator',
    description: 'The picture behind a simulated contact way or group way QR code URL (SVG, not scannable), or with `Accept: application/json` what it stands for. Scan it in a demo by injecting a customer with its configId through the simulator. 404 when CHAT_PLATFORM_MODE is not `simulator`.',
  })
  @ApiParam({ name: 'code', description: 'The last path segment of the QR code URL.', example: 'q8ZrT0aLk2mB7xVw4yNc1sDe' })
  @ApiProduces('image/svg+xml', 'application/json')
  @ApiOkResponse({ description: 'SVG picture, or SimulatedQrCodeDto as JSON.', type: SimulatedQrCodeDto })
  @ApiNotFoundResponse({ description: 'The simulator is off, or no simulated way has this QR code (problem+json).' })
  async get(@Param('code') code: string, @Req() request: Request, @Res() response: Response): Promise<void> {
    if (this.config.chatPlatform.mode !== 'simulator') throw new NotFoundException('The chat platform simulator is off (CHAT_PLATFORM_MODE is not "simulator"), so it serves no QR codes.');
    if (!QR_CODE_SEGMENT.test(code)) throw new NotFoundException(`The simulator has no QR code "${code}".`);
    const way = await this.dataSource
      .getRepository(SimContactWayEntity)
      .createQueryBuilder('way')
      .where('way.qr_code LIKE :suffix', { suffix: `%/${code}` })
      .orderBy('way.created_at', 'DESC')
      .getOne();
    if (!way) throw new NotFoundException(`The simulator has no QR code "${code}".`);
    const kind = way.kind === 'join_way' ? 'groupWay' : 'contactWay';
    if (request.accepts(['image/svg+xml', 'application/json']) === 'application/json') {
      const body: SimulatedQrCodeDto = {
        simulated: true,
        kind,
        configId: way.configId,
        scene: way.scene,
        state: way.state,
        ...(kind === 'contactWay' ? { workChatUserIds: way.userIds } : { chatIds: way.chatIds }),
        hint: kind === 'contactWay'
          ? 'Scan it by injecting a customer through the chat platform simulator with this configId as contactWayConfigId.'
          : 'Scan it by adding a customer to one of the group chats through the chat platform simulator.',
      };
      response.status(200).json(body);
      return;
    }
    const caption = ['Simulated QR code', `${kind === 'contactWay' ? 'contact way' : 'group way'}${way.state ? ` · state ${way.state}` : ''}`];
    response.status(200).type('image/svg+xml').setHeader('Cache-Control', 'no-store').send(renderSimulatedQrSvg(code, caption));
  }
}
