import { DomainError } from '@gen/errors';
import type { MemberRole } from './member-role';
import { removalCheck, roleChangeCheck, transferCheck } from './member-rules';
import type { MembersCheck } from './members.repository';

function members(entries: Record<string, MemberRole>) {
  const roles = new Map(Object.entries(entries));
  return { roles, owners: [...roles.values()].filter((r) => r === 'owner').length };
}

/** The error code a check refuses with, or 'ok'. */
function outcome(check: MembersCheck, entries: Record<string, MemberRole>): string {
  try {
    check(members(entries));
    return 'ok';
  } catch (error) {
    if (error instanceof DomainError) return error.code;
    throw error;
  }
}

const team = { o1: 'owner', a1: 'admin', d1: 'developer', v1: 'viewer' } as const;

describe('member rules', () => {
  it('let an owner give any role, an admin any but owner, and nobody else change roles', () => {
    expect(outcome(roleChangeCheck('o1', 'd1', 'owner'), team)).toBe('ok');
    expect(outcome(roleChangeCheck('a1', 'd1', 'admin'), team)).toBe('ok');
    expect(outcome(roleChangeCheck('a1', 'd1', 'owner'), team)).toBe('forbidden');
    expect(outcome(roleChangeCheck('a1', 'o1', 'viewer'), team)).toBe('forbidden');
    expect(outcome(roleChangeCheck('d1', 'v1', 'developer'), team)).toBe('forbidden');
    expect(outcome(roleChangeCheck('v1', 'v1', 'owner'), team)).toBe('forbidden');
  });

  it('never demote the last owner, but demote one of two', () => {
    expect(outcome(roleChangeCheck('o1', 'o1', 'admin'), team)).toBe('conflict');
    expect(outcome(roleChangeCheck('o1', 'o2', 'admin'), { ...team, o2: 'owner' })).toBe('ok');
  });

  it('refuse unknown members, no-op changes and actors removed meanwhile', () => {
    expect(outcome(roleChangeCheck('o1', 'zz', 'viewer'), team)).toBe('not_found');
    expect(outcome(roleChangeCheck('o1', 'd1', 'developer'), team)).toBe('conflict');
    expect(outcome(roleChangeCheck('gone', 'd1', 'viewer'), team)).toBe('forbidden');
  });

  it('let anyone leave but the last owner; admins remove all but owners', () => {
    expect(outcome(removalCheck('v1', 'v1'), team)).toBe('ok');
    expect(outcome(removalCheck('o1', 'o1'), team)).toBe('conflict');
    expect(outcome(removalCheck('o1', 'o1'), { ...team, o2: 'owner' })).toBe('ok');
    expect(outcome(removalCheck('a1', 'd1'), team)).toBe('ok');
    expect(outcome(removalCheck('a1', 'o1'), team)).toBe('forbidden');
    expect(outcome(removalCheck('d1', 'v1'), team)).toBe('forbidden');
    expect(outcome(removalCheck('o1', 'a1'), team)).toBe('ok');
  });

  it('let only an owner transfer ownership, to another member who is not an owner', () => {
    expect(outcome(transferCheck('o1', 'd1'), team)).toBe('ok');
    expect(outcome(transferCheck('a1', 'd1'), team)).toBe('forbidden');
    expect(outcome(transferCheck('o1', 'o1'), team)).toBe('validation_error');
    expect(outcome(transferCheck('o1', 'zz'), team)).toBe('not_found');
    expect(outcome(transferCheck('o1', 'o2'), { ...team, o2: 'owner' })).toBe('conflict');
  });
});
