import { Injectable, OnModuleInit } from '@nestjs/common';
import { DigitalStaffTargetRegistry } from '../../common/ports/digital-staff-target';
import { DigitalStaffSandbox } from './digital-staff-sandbox.service';

/**
 * Registers the chat wing's sandbox as the `digital_staff` evaluation target (issue 15 item 8): the evaluation wing
 * finds it through the shared port's registry and never imports the chat wing.
 */
@Injectable()
export class DigitalStaffTargetRegistration implements OnModuleInit {
  constructor(
    private readonly registry: DigitalStaffTargetRegistry,
    private readonly sandbox: DigitalStaffSandbox,
  ) {}

  /** Registers at start-up, before the app listens. */
  onModuleInit(): void {
    this.registry.register(this.sandbox);
  }
}
