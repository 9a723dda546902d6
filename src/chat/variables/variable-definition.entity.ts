import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import type { VariableType } from './variable-value.rules';

/**
 * A typed variable of a scope (chat-management-api.md, Variables: VariableDefinitionDto). `name` is what templates
 * write as `{{name}}` and is unique within the scope; `options` are the allowed values of an `enum`; `defaultValue`
 * (JSON, matching the type) stands in for a subject without a value. Every index leads with `tenant_id`;
 * `scope_id` is a plain uuid column (no FK): the service keeps it consistent.
 */
@Entity({ name: 'chat_variable_definition' })
@Index('ux_chat_variable_definition_scope_name', ['tenantId', 'scopeId', 'name'], { unique: true })
export class VariableDefinitionEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'varchar', length: 63 })
  tenantId: string;

  /** The scope (chat_variable_scope.id). */
  @Column({ type: 'uuid' })
  scopeId: string;

  @Column({ type: 'varchar', length: 64 })
  name: string;

  @Column({ type: 'varchar', length: 16 })
  type: VariableType;

  /** Allowed values of an `enum` variable; null for other types. */
  @Column({ type: 'jsonb', nullable: true })
  options: string[] | null;

  /** Default value (JSON matching the type), or null when there is none. */
  @Column({ type: 'jsonb', nullable: true })
  defaultValue: unknown;

  @Column({ type: 'varchar', length: 500, nullable: true })
  description: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
