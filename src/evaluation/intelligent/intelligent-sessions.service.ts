import { ConflictException, HttpStatus, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { ProblemException } from '../../common/http/problem-details';
import { Page, toOrder, toPage } from '../../common/paging/page';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { IntelligentEvaluationEntity } from './intelligent-evaluation.entity';
import {
  INTELLIGENT_MESSAGE_SORT_FIELDS,
  INTELLIGENT_SESSION_SORT_FIELDS,
  CreateIntelligentSessionDto,
  IntelligentMessageDto,
  IntelligentMessageQueryDto,
  IntelligentSessionDto,
  IntelligentSessionQueryDto,
  PostIntelligentMessageDto,
  toIntelligentMessageDto,
  toIntelligentSessionDto,
} from './intelligent-evaluations.dto';
import { isTerminalIntelligentStatus } from './intelligent-lifecycle';
import { IntelligentMessageEntity } from './intelligent-message.entity';
import { IntelligentSessionEntity } from './intelligent-session.entity';
import { ListPager } from '../../common/paging/list-pager';

/**
 * Sessions and messages of intelligent evaluations. Opening a session and posting a message first take a shared
 * lock on the evaluation row (`FOR SHARE`), so they never interleave with a move to a terminal state (which updates
 * that row and closes the open sessions in one transaction): a message is either stored before the evaluation ends,
 * or refused with 409. A message is added with a conditional `UPDATE … WHERE status = 'open' AND message_count <
 * cap` on its session, so a concurrent close or the cap cannot be slipped past either.
 */
@Injectable()
export class IntelligentSessionsService {
  constructor(
    private readonly pager: ListPager,
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Opens a session. `planning` sessions open in any non-terminal state; `execution` sessions only while the
   * evaluation is `executing` (its plan approved), so no execution happens before approval.
   * @throws NotFoundException (404) unknown evaluation
   * @throws ConflictException (409) the evaluation is terminal, or an execution session before approval
   */
  async create(evaluationId: string, input: CreateIntelligentSessionDto): Promise<IntelligentSessionDto> {
    const session = await this.dataSource.transaction(async (manager) => {
      const evaluation = await this.lockEvaluation(manager, evaluationId);
      if (isTerminalIntelligentStatus(evaluation.status)) {
        throw new ConflictException(`The evaluation is ${evaluation.status}, a terminal state: no session can be opened.`);
      }
      if (input.kind === 'execution' && evaluation.status !== 'executing') {
        throw new ConflictException(`Execution sessions open only while the evaluation is executing, i.e. after its plan is approved; it is ${evaluation.status}.`);
      }
      const repository = manager.getRepository(IntelligentSessionEntity);
      return repository.save(
        repository.create({ evaluationId, title: input.title, kind: input.kind, status: 'open', messageCount: 0, lastMessageAt: null, closedAt: null }),
      );
    });
    return toIntelligentSessionDto(session);
  }

  /**
   * Sessions of an evaluation, oldest first; filter by status and kind; sortable by `createdAt`.
   * @throws NotFoundException (404) unknown evaluation
   */
  async list(evaluationId: string, query: IntelligentSessionQueryDto): Promise<Page<IntelligentSessionDto>> {
    await this.assertEvaluationExists(evaluationId);
    const order = toOrder(query.sort, INTELLIGENT_SESSION_SORT_FIELDS, { createdAt: 'ASC' });
    const { rows, ...slice } = await this.pager.find(this.dataSource.getRepository(IntelligentSessionEntity), {
      where: { evaluationId, ...(query.status ? { status: query.status } : {}), ...(query.kind ? { kind: query.kind } : {}) },
      order,
    }, query);
    return toPage(rows.map(toIntelligentSessionDto), slice, query);
  }

  /** @throws NotFoundException (404) unknown evaluation, or no such session in it */
  async get(evaluationId: string, sessionId: string): Promise<IntelligentSessionDto> {
    return toIntelligentSessionDto(await this.find(evaluationId, sessionId));
  }

  /**
   * Closes an open session; closing is final.
   * @throws NotFoundException (404); ConflictException (409) the session is already closed
   */
  async close(evaluationId: string, sessionId: string): Promise<IntelligentSessionDto> {
    const result = await this.dataSource
      .createQueryBuilder()
      .update(IntelligentSessionEntity)
      .set({ status: 'closed', closedAt: () => 'now()' })
      .where('id = :sessionId AND evaluation_id = :evaluationId AND status = :open', { sessionId, evaluationId, open: 'open' })
      .execute();
    const session = await this.find(evaluationId, sessionId);
    if (!result.affected) throw new ConflictException(`Session ${sessionId} is already closed (since ${session.closedAt?.toISOString()}).`);
    return toIntelligentSessionDto(session);
  }

  /**
   * Appends a message to an open session of a non-terminal evaluation.
   * @throws ProblemException (413) content, or metadata as JSON, longer than EVAL_INTELLIGENT_MAX_MESSAGE_CHARS
   * @throws NotFoundException (404) unknown evaluation or session
   * @throws ConflictException (409) the evaluation is terminal, the session is closed, or it holds
   *         EVAL_INTELLIGENT_MAX_MESSAGES_PER_SESSION messages already
   */
  async postMessage(evaluationId: string, sessionId: string, input: PostIntelligentMessageDto): Promise<IntelligentMessageDto> {
    const { maxMessageChars, maxMessagesPerSession } = this.config.evaluation.intelligent;
    const metadata = input.metadata ?? {};
    if (input.content.length > maxMessageChars) {
      throw new ProblemException(HttpStatus.PAYLOAD_TOO_LARGE, `The message content has ${input.content.length} characters; at most ${maxMessageChars} are accepted (EVAL_INTELLIGENT_MAX_MESSAGE_CHARS). Split it into several messages.`);
    }
    const metadataChars = JSON.stringify(metadata).length;
    if (metadataChars > maxMessageChars) {
      throw new ProblemException(HttpStatus.PAYLOAD_TOO_LARGE, `The message metadata is ${metadataChars} characters as JSON; at most ${maxMessageChars} are accepted (EVAL_INTELLIGENT_MAX_MESSAGE_CHARS).`);
    }
    const message = await this.dataSource.transaction(async (manager) => {
      const evaluation = await this.lockEvaluation(manager, evaluationId);
      if (isTerminalIntelligentStatus(evaluation.status)) {
        throw new ConflictException(`The evaluation is ${evaluation.status}, a terminal state: it accepts no more messages.`);
      }
      const counted = await manager
        .createQueryBuilder()
        .update(IntelligentSessionEntity)
        .set({ messageCount: () => 'message_count + 1', lastMessageAt: () => 'now()' })
        .where('id = :sessionId AND evaluation_id = :evaluationId AND status = :open AND message_count < :cap', { sessionId, evaluationId, open: 'open', cap: maxMessagesPerSession })
        .execute();
      if (!counted.affected) {
        const session = await this.find(evaluationId, sessionId, manager);
        if (session.status === 'closed') throw new ConflictException(`Session ${sessionId} is closed: it accepts no more messages. Open a new session.`);
        throw new ConflictException(`Session ${sessionId} holds ${session.messageCount} messages, the most one session may hold (EVAL_INTELLIGENT_MAX_MESSAGES_PER_SESSION). Open a new session.`);
      }
      const repository = manager.getRepository(IntelligentMessageEntity);
      return repository.save(repository.create({ evaluationId, sessionId, role: input.role, content: input.content, metadata }));
    });
    return toIntelligentMessageDto(message);
  }

  /**
   * Messages of a session, oldest first; filter by role; sortable by `createdAt`.
   * @throws NotFoundException (404) unknown evaluation or session
   */
  async listMessages(evaluationId: string, sessionId: string, query: IntelligentMessageQueryDto): Promise<Page<IntelligentMessageDto>> {
    await this.find(evaluationId, sessionId);
    const order = toOrder(query.sort, INTELLIGENT_MESSAGE_SORT_FIELDS, { createdAt: 'ASC' });
    const { rows, ...slice } = await this.pager.find(this.dataSource.getRepository(IntelligentMessageEntity), {
      where: { sessionId, ...(query.role ? { role: query.role } : {}) },
      order,
    }, query);
    return toPage(rows.map(toIntelligentMessageDto), slice, query);
  }

  /** The session of that evaluation. @throws NotFoundException (404) naming which one is unknown */
  private async find(evaluationId: string, sessionId: string, manager: EntityManager = this.dataSource.manager): Promise<IntelligentSessionEntity> {
    const session = await manager.getRepository(IntelligentSessionEntity).findOneBy({ id: sessionId, evaluationId });
    if (session) return session;
    await this.assertEvaluationExists(evaluationId, manager);
    throw new NotFoundException(`No session ${sessionId} in intelligent evaluation ${evaluationId}.`);
  }

  /** @throws NotFoundException (404) */
  private async assertEvaluationExists(evaluationId: string, manager: EntityManager = this.dataSource.manager): Promise<void> {
    const exists = await manager.getRepository(IntelligentEvaluationEntity).existsBy({ id: evaluationId });
    if (!exists) throw new NotFoundException(`No intelligent evaluation ${evaluationId}.`);
  }

  /** Reads the evaluation under a shared row lock held until the transaction ends. @throws NotFoundException (404) */
  private async lockEvaluation(manager: EntityManager, evaluationId: string): Promise<Pick<IntelligentEvaluationEntity, 'id' | 'status'>> {
    const evaluation = await manager
      .getRepository(IntelligentEvaluationEntity)
      .createQueryBuilder('e')
      .select(['e.id', 'e.status'])
      .where('e.id = :evaluationId', { evaluationId })
      .setLock('pessimistic_read')
      .getOne();
    if (!evaluation) throw new NotFoundException(`No intelligent evaluation ${evaluationId}.`);
    return evaluation;
  }
}
