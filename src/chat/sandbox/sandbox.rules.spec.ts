import { DigitalStaffSandboxError } from './digital-staff-sandbox.error';
import { replyOfOutcome, sandboxContactName, sandboxExternalUserId } from './sandbox.rules';

describe('sandboxExternalUserId', () => {
  it('is stable per session key, distinct across keys, and fits the column', () => {
    const id = sandboxExternalUserId('run-1:case-a:0');
    expect(id).toMatch(/^sandbox-[0-9a-f]{40}$/);
    expect(id.length).toBeLessThanOrEqual(64);
    expect(sandboxExternalUserId('run-1:case-a:0')).toBe(id);
    expect(sandboxExternalUserId('run-1:case-a:1')).not.toBe(id);
    expect(sandboxExternalUserId('run-1:case-b:0')).not.toBe(id);
  });
});

describe('sandboxContactName', () => {
  it('names the session and fits 128 characters', () => {
    expect(sandboxContactName('run-1:case-a:0')).toBe('Evaluation sandbox run-1:case-a:0');
    const long = sandboxContactName(`run:${'c'.repeat(300)}\n:0`);
    expect(long).toHaveLength(128);
    expect(long.endsWith('…')).toBe(true);
    expect(long).not.toContain('\n');
  });
});

describe('replyOfOutcome', () => {
  it('gives the reply text of a reply and of an out-of-hours message', () => {
    expect(replyOfOutcome({ status: 'replied', messageId: 'm', text: 'Hello!' })).toBe('Hello!');
    expect(replyOfOutcome({ status: 'out_of_hours', messageId: 'm', text: 'We are closed.' })).toBe('We are closed.');
    expect(replyOfOutcome({ status: 'out_of_hours', messageId: null, text: null })).toBe('');
  });

  it.each(['intervened', 'skipped', 'failed'] as const)('refuses %s, naming the outcome and its reason', (status) => {
    let thrown: unknown;
    try {
      replyOfOutcome({ status, reason: 'because' });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(DigitalStaffSandboxError);
    expect(thrown).toMatchObject({ code: status, message: `the digital staff did not reply: ${status} (because)` });
  });
});
