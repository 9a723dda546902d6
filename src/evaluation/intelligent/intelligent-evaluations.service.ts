import { BadRequestException, HttpStatus, Injectable, NotFoundException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, In } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { ProblemException } from '../../common/http/problem-details';
import { Page, toOrder, toPage } from '../../common/paging/page';
import type { EvaluationPrincipal } from '../auth/evaluation-auth';
import { TargetsService } from '../targets/targets.service';
import { IntelligentEvaluationEntity } from './intelligent-evaluation.entity';
import {
  INTELLIGENT_EVALUATION_SORT_FIELDS,
  CreateIntelligentEvaluationDto,
  IntelligentEvaluationDto,
  IntelligentEvaluationQueryDto,
  IntelligentEvaluationSummaryDto,
  IntelligentReportDto,
  SubmitIntelligentReportDto,
  toAllowedMoveDtos,
  toIntelligentEvaluationDto,
  toIntelligentEvaluationSummaryDto,
  toIntelligentReportDto,
  toStoredReport,
  TransitionIntelligentEvaluationDto,
} from './intelligent-evaluations.dto';
import { allowedMoves, decideTransition, describeAllowedMoves, IntelligentStatus, isTerminalIntelligentStatus, TransitionTrigger } from './intelligent-lifecycle';
import { IntelligentMessageEntity } from './intelligent-message.entity';
import { checkEvidence, checkPlanConsistency, checkReportConsistency, citedIds, FieldError, IntelligentPlan, IntelligentReport } from './intelligent-report';
import { IntelligentSessionEntity } from './intelligent-session.entity';
import { ListPager } from '../../common/paging/list-pager';

/** Columns of an evaluation without its plan and report (lists stay light). */
const SUMMARY_COLUMNS = [
  'e.id', 'e.name', 'e.goal', 'e.description', 'e.targetId', 'e.status', 'e.approvedBy', 'e.approvalNote', 'e.statusReason', 'e.createdAt', 'e.updatedAt',
  'e.planningAt', 'e.pendingApprovalAt', 'e.executingAt', 'e.completedAt', 'e.failedAt', 'e.cancelledAt',
];

/** The column that records when each state was entered (draft: `createdAt`). */
const ENTERED_AT: Record<Exclude<IntelligentStatus, 'draft'>, keyof IntelligentEvaluationEntity> = {
  planning: 'planningAt',
  pending_approval: 'pendingApprovalAt',
  executing: 'executingAt',
  completed: 'completedAt',
  failed: 'failedAt',
  cancelled: 'cancelledAt',
};

/** Columns a move writes; always the new status. */
type Changes = Partial<IntelligentEvaluationEntity> & { status: IntelligentStatus };

/** Moves that keep the request's `reason`: the approval note, the failure and the cancellation reason. */
const MOVES_WITH_REASON: IntelligentStatus[] = ['executing', 'failed', 'cancelled'];

/** A 400 in the validation pipe's shape: a readable detail plus one `errors[]` entry per field. */
export function invalidFields(what: string, errors: FieldError[]): BadRequestException {
  const detail = errors.map((error) => `${error.field} (${error.messages.join(', ')})`).join('; ');
  return new BadRequestException({ message: `Invalid ${what}: ${detail}`, errors });
}

/** Thrown inside a transaction when the conditional update found the state changed; turned into a 409 outside. */
class StateChanged extends Error {}

/**
 * Intelligent evaluations (evaluation-platform.md, Intelligent evaluation; issue 4): creation, reads, the
 * lifecycle moves and the structured report. Every move is one conditional `UPDATE … WHERE id = :id AND status =
 * :from` in a transaction that also closes open sessions when the new state is terminal, so of two concurrent moves
 * from the same state exactly one succeeds and the other gets 409.
 */
@Injectable()
export class IntelligentEvaluationsService {
  constructor(
    private readonly pager: ListPager,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly targets: TargetsService,
  ) {}

  /**
   * Creates an evaluation in `draft`.
   * @throws BadRequestException (400) `target_id` names no target
   */
  async create(input: CreateIntelligentEvaluationDto): Promise<IntelligentEvaluationDto> {
    if (input.target_id) {
      try {
        await this.targets.find(input.target_id);
      } catch (error) {
        if (error instanceof NotFoundException) throw invalidFields('request', [{ field: 'target_id', messages: [`no target ${input.target_id}; create it with POST /api/targets first`] }]);
        throw error;
      }
    }
    const repository = this.dataSource.getRepository(IntelligentEvaluationEntity);
    const row = repository.create({
      name: input.name,
      goal: input.goal,
      description: input.description ?? null,
      targetId: input.target_id ?? null,
      status: 'draft',
      plan: null,
      approvedBy: null,
      approvalNote: null,
      report: null,
      statusReason: null,
      planningAt: null,
      pendingApprovalAt: null,
      executingAt: null,
      completedAt: null,
      failedAt: null,
      cancelledAt: null,
    });
    return toIntelligentEvaluationDto(await repository.save(row));
  }

  /** Newest first; filter by status and target; sortable by `createdAt`, `updatedAt`, `name`. Plans and reports are not loaded. */
  async list(query: IntelligentEvaluationQueryDto): Promise<Page<IntelligentEvaluationSummaryDto>> {
    const order = toOrder(query.sort, INTELLIGENT_EVALUATION_SORT_FIELDS, { 'e.createdAt': 'DESC' });
    const builder = this.dataSource
      .getRepository(IntelligentEvaluationEntity)
      .createQueryBuilder('e')
      .select(SUMMARY_COLUMNS)
      .addSelect('e.report IS NOT NULL', 'has_report');
    if (query.status) builder.andWhere('e.status = :status', { status: query.status });
    if (query.target_id) builder.andWhere('e.targetId = :targetId', { targetId: query.target_id });
    for (const [field, direction] of Object.entries(order)) builder.addOrderBy(field, direction);
    const { rows, raws, ...slice } = await this.pager.page(builder, query);
    const content = rows.map((row, index) => toIntelligentEvaluationSummaryDto(row, Boolean((raws[index] as { has_report: boolean }).has_report)));
    return toPage(content, slice, query);
  }

  /** The evaluation with its plan and allowed moves. @throws NotFoundException (404) */
  async get(id: string): Promise<IntelligentEvaluationDto> {
    return toIntelligentEvaluationDto(await this.find(id));
  }

  /** The stored evaluation. @throws NotFoundException (404) */
  async find(id: string, manager: EntityManager = this.dataSource.manager): Promise<IntelligentEvaluationEntity> {
    const row = await manager.getRepository(IntelligentEvaluationEntity).findOneBy({ id });
    if (!row) throw new NotFoundException(`No intelligent evaluation ${id}.`);
    return row;
  }

  /**
   * Moves the evaluation to `input.to` (any move but → completed, which is {@link submitReport}). Needs: the `plan`
   * for → pending_approval (checked for unique dimensions and step ids); a `reason` for → failed. Records the
   * approval (`approved_by` = `actor` or the credential, `approval_note` = `reason`) on → executing, the reason on
   * → failed/cancelled, and the time each state is entered. Open sessions close on entering a terminal state.
   * @throws NotFoundException (404)
   * @throws ProblemException (409) the move is not allowed from the current state, the state is not `input.from`, or it changed meanwhile;
   *         the body carries `current_status`, `requested_status`, `allowed_moves`
   * @throws BadRequestException (400) plan missing/misplaced/inconsistent, reason missing for failed or given for a move that keeps none
   */
  async transition(id: string, input: TransitionIntelligentEvaluationDto, principal: EvaluationPrincipal): Promise<IntelligentEvaluationDto> {
    const current = await this.find(id);
    if (input.from && input.from !== current.status) {
      throw this.conflict(
        current,
        input.to,
        `The evaluation is ${current.status}, not ${input.from} as the request expected; nothing was changed. Allowed moves from ${current.status}: ${describeAllowedMoves(current.status)}.`,
      );
    }
    this.assertAllowed(current, input.to, 'transition');
    const to = input.to as Exclude<IntelligentStatus, 'draft' | 'completed'>;

    const errors: FieldError[] = [];
    let plan: IntelligentPlan | undefined;
    if (to === 'pending_approval') {
      if (!input.plan) errors.push({ field: 'plan', messages: ['a plan is required to move to pending_approval'] });
      else {
        plan = {
          summary: input.plan.summary,
          dimensions: input.plan.dimensions,
          steps: input.plan.steps.map((step) => ({ id: step.id, title: step.title, description: step.description ?? null })),
          metadata: input.plan.metadata ?? {},
        };
        errors.push(...checkPlanConsistency(plan));
      }
    } else if (input.plan) {
      errors.push({ field: 'plan', messages: [`a plan is accepted only with the move to pending_approval, not with the move to ${to}`] });
    }
    if (to === 'failed' && !input.reason) errors.push({ field: 'reason', messages: ['a reason is required to mark the evaluation failed'] });
    if (input.reason && !MOVES_WITH_REASON.includes(to)) {
      errors.push({ field: 'reason', messages: [`a reason is kept only with the moves to ${MOVES_WITH_REASON.join(', ')}, not with the move to ${to}`] });
    }
    if (errors.length > 0) throw invalidFields('transition', errors);

    const now = new Date();
    const changes: Changes = { status: to, updatedAt: now, [ENTERED_AT[to]]: now };
    if (plan) changes.plan = plan;
    if (to === 'executing') {
      // A key's subject already names it (`api-key:<name>`); a session's is `admin`.
      changes.approvedBy = input.actor ?? (principal.kind === 'api-key' ? principal.subject : `${principal.kind}:${principal.subject}`);
      changes.approvalNote = input.reason ?? null;
    }
    if (to === 'failed' || to === 'cancelled') changes.statusReason = input.reason ?? null;
    return toIntelligentEvaluationDto(await this.move(current, changes));
  }

  /**
   * Completes an executing evaluation with its structured report: checked for unique score dimensions, a score
   * for every dimension of the approved plan, unique finding ids, recommendations citing findings of the report,
   * and evidence citing sessions and messages of this evaluation. Open sessions are closed.
   * @throws NotFoundException (404)
   * @throws ProblemException (409) the evaluation is not executing (body names the allowed moves)
   * @throws BadRequestException (400) with one `errors[]` entry per inconsistent field or unknown reference
   */
  async submitReport(id: string, input: SubmitIntelligentReportDto): Promise<IntelligentReportDto> {
    const current = await this.find(id);
    this.assertAllowed(current, 'completed', 'report');
    const report = toStoredReport(input);
    const errors = [...checkReportConsistency(report, current.plan?.dimensions ?? []), ...(await this.checkEvidence(id, report))];
    if (errors.length > 0) throw invalidFields('report', errors);
    const now = new Date();
    const row = await this.move(current, { status: 'completed', report, completedAt: now, updatedAt: now });
    return toIntelligentReportDto(row as IntelligentEvaluationEntity & { report: IntelligentReport });
  }

  /**
   * The structured report.
   * @throws NotFoundException (404) unknown evaluation, or no report yet (the detail says which state it is in)
   */
  async getReport(id: string): Promise<IntelligentReportDto> {
    const row = await this.find(id);
    if (!row.report) {
      throw new NotFoundException(`Intelligent evaluation ${id} has no report: it is ${row.status}, and a report exists only once an executing evaluation submits it (POST …/report).`);
    }
    return toIntelligentReportDto(row as IntelligentEvaluationEntity & { report: IntelligentReport });
  }

  /** @throws ProblemException (409) when the lifecycle refuses `to` by `trigger` from the current state */
  private assertAllowed(current: IntelligentEvaluationEntity, to: IntelligentStatus, trigger: TransitionTrigger): void {
    const decision = decideTransition(current.status, to, trigger);
    if (!decision.allowed) throw this.conflict(current, to, decision.reason);
  }

  /** The 409 of a refused move, naming the current state and the moves allowed from it. */
  private conflict(current: IntelligentEvaluationEntity, to: IntelligentStatus, reason: string): ProblemException {
    return new ProblemException(HttpStatus.CONFLICT, reason, {
      current_status: current.status,
      requested_status: to,
      allowed_moves: toAllowedMoveDtos(current.id, allowedMoves(current.status)),
    });
  }

  /**
   * Applies `changes` only if the evaluation is still in `current.status` (atomic compare-and-set), closing open
   * sessions in the same transaction when the new state is terminal.
   * @returns the updated row
   * @throws ProblemException (409) another request moved the evaluation first
   */
  private async move(current: IntelligentEvaluationEntity, changes: Changes): Promise<IntelligentEvaluationEntity> {
    try {
      return await this.dataSource.transaction(async (manager) => {
        const result = await manager
          .createQueryBuilder()
          .update(IntelligentEvaluationEntity)
          .set(changes as QueryDeepPartialEntity<IntelligentEvaluationEntity>)
          .where('id = :id AND status = :from', { id: current.id, from: current.status })
          .execute();
        if (!result.affected) throw new StateChanged();
        if (isTerminalIntelligentStatus(changes.status)) {
          await manager
            .createQueryBuilder()
            .update(IntelligentSessionEntity)
            .set({ status: 'closed', closedAt: changes.updatedAt ?? new Date() })
            .where('evaluation_id = :id AND status = :open', { id: current.id, open: 'open' })
            .execute();
        }
        return this.find(current.id, manager);
      });
    } catch (error) {
      if (!(error instanceof StateChanged)) throw error;
      const now = await this.find(current.id);
      throw this.conflict(
        now,
        changes.status,
        `The evaluation moved from ${current.status} to ${now.status} while this request ran, so the move to ${changes.status} was not made. Allowed moves from ${now.status}: ${describeAllowedMoves(now.status)}.`,
      );
    }
  }

  /** Field errors for evidence citing sessions or messages that are not this evaluation's (two indexed lookups). */
  private async checkEvidence(evaluationId: string, report: IntelligentReport): Promise<FieldError[]> {
    const { sessionIds, messageIds } = citedIds(report);
    const [sessions, messages] = await Promise.all([
      sessionIds.length === 0 ? [] : this.dataSource.getRepository(IntelligentSessionEntity).find({ select: { id: true }, where: { id: In(sessionIds), evaluationId } }),
      messageIds.length === 0 ? [] : this.dataSource.getRepository(IntelligentMessageEntity).find({ select: { id: true, sessionId: true }, where: { id: In(messageIds), evaluationId } }),
    ]);
    return checkEvidence(report, new Set(sessions.map((session) => session.id)), new Map(messages.map((message) => [message.id, message.sessionId])));
  }
}
