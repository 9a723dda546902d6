/**
 * The sandbox's error and its codes live in the port shared with the evaluation wing (src/common/ports, issue 15
 * item 8), so that wing can recognise them without importing the chat wing.
 */
export { DigitalStaffSandboxError, type DigitalStaffSandboxErrorCode } from '../../common/ports/digital-staff-target';
