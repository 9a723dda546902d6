import { BadRequestException, ConflictException, ForbiddenException, PayloadTooLargeException, ServiceUnavailableException } from '@nestjs/common';
import { deployRefusalReason, execOutcome } from './deploy-metrics';

describe('deploy metric labels (deploy-metrics.ts)', () => {
  it('names a refused deploy by the class of its refusal', () => {
    expect(deployRefusalReason(new BadRequestException('Archive rejected: symlink'))).toBe('bad_archive');
    expect(deployRefusalReason(new ForbiddenException())).toBe('forbidden');
    expect(deployRefusalReason(new PayloadTooLargeException())).toBe('too_large');
    expect(deployRefusalReason(new ConflictException())).toBe('conflict');
    expect(deployRefusalReason(new ServiceUnavailableException())).toBe('unavailable');
    expect(deployRefusalReason(new Error('disk full at /srv/sites/c-1/abc'))).toBe('error');
  });

  it('names an exec call by how it ended', () => {
    expect(execOutcome({ exitCode: 0, timedOut: false })).toBe('exit_zero');
    expect(execOutcome({ exitCode: 2, timedOut: false })).toBe('exit_nonzero');
    expect(execOutcome({ exitCode: null, timedOut: true })).toBe('timed_out');
    expect(execOutcome({ exitCode: null, timedOut: false })).toBe('killed');
    expect(execOutcome(undefined, new ForbiddenException())).toBe('refused');
    expect(execOutcome(undefined, new BadRequestException())).toBe('invalid');
    expect(execOutcome(undefined, new ServiceUnavailableException())).toBe('unavailable');
    expect(execOutcome(undefined, new Error('x'))).toBe('error');
  });
});
