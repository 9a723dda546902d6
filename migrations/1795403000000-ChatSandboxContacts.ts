import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Chat wing, sandbox contacts (issue 6, acceptance 7: an evaluation target that is a chat digital staff): a
 * `sandbox` flag on chat_external_contact. A sandbox contact is created by the evaluation sandbox
 * (src/chat/sandbox), never by the platform: its messages are never sent to the platform and it is never synced.
 * Existing rows are real customers (`false`).
 */
export class ChatSandboxContacts1795403000000 implements MigrationInterface {
  name = 'ChatSandboxContacts1795403000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE chat_external_contact ADD COLUMN sandbox boolean NOT NULL DEFAULT false`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE chat_external_contact DROP COLUMN sandbox`);
  }
}
