import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** A published static site (deployment-gateway.md, Resources: Deployment), files under `<sites>/<namespace>/<directoryName>/`. */
@Entity({ name: 'deploy_deployment' })
@Index('ix_deploy_deployment_namespace_created', ['namespace', 'createdAt'])
export class DeploymentEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'varchar', length: 64 })
  namespace: string;

  @Column({ type: 'varchar', length: 128 })
  projectName: string;

  /** `<random_id>-<project_name>-<timestamp>` */
  @Index('ux_deploy_deployment_directory', { unique: true })
  @Column({ type: 'varchar', length: 96 })
  directoryName: string;

  @Column({ type: 'integer' })
  fileCount: number;

  /** Unpacked size in bytes. */
  @Column({ type: 'bigint', transformer: { to: (value: number) => value, from: (value: string) => Number(value) } })
  bytes: number;

  @Column({ type: 'varchar', length: 16 })
  tokenPrefix: string;

  @Column({ type: 'varchar', length: 128 })
  agentId: string;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;
}
