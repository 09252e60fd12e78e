import { canManageRole, isMemberRole, MEMBER_ROLES, roleAtLeast, roleWithArticle } from './member-roles';

describe('member roles', () => {
  it('rank owner over admin over developer over viewer', () => {
    const table = MEMBER_ROLES.map((role) => MEMBER_ROLES.filter((needed) => roleAtLeast(role, needed)));
    expect(table).toEqual([
      ['owner', 'admin', 'developer', 'viewer'],
      ['admin', 'developer', 'viewer'],
      ['developer', 'viewer'],
      ['viewer'],
    ]);
  });

  it('let owners manage every role, admins every role but owner, the others none', () => {
    const table = MEMBER_ROLES.map((actor) => MEMBER_ROLES.filter((target) => canManageRole(actor, target)));
    expect(table).toEqual([['owner', 'admin', 'developer', 'viewer'], ['admin', 'developer', 'viewer'], [], []]);
  });

  it('recognise only the four role names', () => {
    expect(MEMBER_ROLES.every(isMemberRole)).toBe(true);
    expect(['Owner', 'root', '', null, 3].some(isMemberRole)).toBe(false);
    expect(MEMBER_ROLES.map(roleWithArticle)).toEqual(['an owner', 'an admin', 'a developer', 'a viewer']);
  });
});
