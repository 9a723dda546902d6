import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/** `subject_id` of a value in a `tenant` scope: the tenant itself (the API shows `subjectId: null`). */
export const TENANT_SUBJECT = '';

/**
 * The value of one variable definition for one subject (chat-management-api.md, Variables: VariableValueDto). The
 * subject depends on the scope's source: the tenant ({@link TENANT_SUBJECT}), a digital staff id or an external
 * contact id. One value per (definition, subject). `value` is JSON that matched the definition's type when written.
 * Every index leads with `tenant_id`; scope and definition ids are plain uuid columns (no FK).
 */
@Entity({ name: 'chat_variable_value' })
@Index('ux_chat_variable_value_definition_subject', ['tenantId', 'definitionId', 'subjectId'], { unique: true })
@Index('ix_chat_variable_value_scope_subject', ['tenantId', 'scopeId', 'subjectId'])
export class VariableValueEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'varchar', length: 63 })
  tenantId: string;

  /** The definition's scope (chat_variable_scope.id), kept here for listing a scope's values. */
  @Column({ type: 'uuid' })
  scopeId: string;

  /** chat_variable_definition.id */
  @Column({ type: 'uuid' })
  definitionId: string;

  /** Digital staff id or contact id, or {@link TENANT_SUBJECT} in a `tenant` scope. */
  @Column({ type: 'varchar', length: 64 })
  subjectId: string;

  @Column({ type: 'jsonb' })
  value: unknown;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
