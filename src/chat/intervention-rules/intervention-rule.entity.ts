import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/** How a human-intervention rule recognises a message: keywords (substring), regular expressions, or a detected intent. */
export const INTERVENTION_MATCH_TYPES = ['keywords', 'regex', 'intent'] as const;
export type InterventionMatchType = (typeof INTERVENTION_MATCH_TYPES)[number];

/**
 * A human-intervention rule of a tenant (chat-management-api.md, "Human-intervention rule":
 * CustomerInterventionRuleRequestV1 / CustomerInterventionRulesDtoV1 on the tenant API, CustomerInterventionRuleRequest
 * / CustomerInterventionRulesDto on the console; issue 6, "The inbound pipeline"). When an inbound customer message
 * matches (any of `patterns`, per `matchType`) and the rule applies to the digital staff answering the contact
 * (`allContacts`, or one of `digitalStaffIds`), the pipeline switches the contact's AI off (`switchAiOff`), opens a
 * digital-staff customer to-do (`createTodo`) and records `reason`. Regexes are checked for safety when written
 * (src/chat/intervention-rules/regex-safety.ts). The name is unique within the tenant; every index leads with
 * `tenant_id`.
 */
@Entity({ name: 'chat_intervention_rule' })
@Index('ux_chat_intervention_rule_tenant_name', ['tenantId', 'name'], { unique: true })
@Index('ix_chat_intervention_rule_tenant_created', ['tenantId', 'createdAt'])
@Index('ix_chat_intervention_rule_tenant_enabled', ['tenantId', 'enabled'])
export class InterventionRuleEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'varchar', length: 63 })
  tenantId: string;

  @Column({ type: 'varchar', length: 100 })
  name: string;

  @Column({ type: 'varchar', length: 500, nullable: true })
  description: string | null;

  /** One of {@link INTERVENTION_MATCH_TYPES}. */
  @Column({ type: 'varchar', length: 16 })
  matchType: InterventionMatchType;

  /** Keywords, regular expression sources, or intent names (per `matchType`); at least one. */
  @Column({ type: 'jsonb' })
  patterns: string[];

  /** The rule applies to every contact (true) or only to contacts answered by one of `digitalStaffIds` (false). */
  @Column({ type: 'boolean', default: true })
  allContacts: boolean;

  /** Digital staff (chat_digital_staff.id) the rule is limited to when `allContacts` is false; empty otherwise. */
  @Column({ type: 'jsonb' })
  digitalStaffIds: string[];

  /** A disabled rule is kept but never matches. */
  @Column({ type: 'boolean', default: true })
  enabled: boolean;

  /** Action: switch the contact's AI replies off. */
  @Column({ type: 'boolean', default: true })
  switchAiOff: boolean;

  /** Action: open a digital-staff customer to-do for a person to handle. */
  @Column({ type: 'boolean', default: true })
  createTodo: boolean;

  /** Action: why, as recorded on the contact's to-do and shown to the operator. */
  @Column({ type: 'varchar', length: 500 })
  reason: string;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
