import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import type { VariableSource } from './variable-resolution.rules';

/**
 * A variable scope of a tenant (chat-management-api.md, Variables: VariableScopeDto): a named group of variable
 * definitions whose `source` says what a value is attached to — `tenant` (one global value per definition),
 * `digital_staff` (a value per digital staff) or `contact` (a value per external contact). The name is unique per
 * (tenant, source). Every index leads with `tenant_id`.
 */
@Entity({ name: 'chat_variable_scope' })
@Index('ux_chat_variable_scope_tenant_source_name', ['tenantId', 'source', 'name'], { unique: true })
export class VariableScopeEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'varchar', length: 63 })
  tenantId: string;

  @Column({ type: 'varchar', length: 100 })
  name: string;

  /** What a value of this scope's variables belongs to (see {@link VariableSource}). */
  @Column({ type: 'varchar', length: 32 })
  source: VariableSource;

  @Column({ type: 'varchar', length: 500, nullable: true })
  description: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
