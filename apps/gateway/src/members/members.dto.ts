import { IsIn, IsString, IsUUID, MaxLength } from 'class-validator';
import { MEMBER_ROLES, MemberRole } from '../memberships/member-role';

const ROLE_MESSAGE = `role: one of ${MEMBER_ROLES.join(', ')}.`;

/** Body of POST /dashboard/api/members/invitations. */
export class InviteDto {
  @IsString({ message: 'email: Enter the email address to invite.' })
  @MaxLength(320, { message: 'email: Too long.' })
  email!: string;

  @IsIn(MEMBER_ROLES, { message: ROLE_MESSAGE })
  role!: MemberRole;
}

/** Body of PUT /dashboard/api/members/:userId/role. */
export class RoleDto {
  @IsIn(MEMBER_ROLES, { message: ROLE_MESSAGE })
  role!: MemberRole;
}

/** Body of POST /dashboard/api/members/transfer-ownership. */
export class TransferOwnershipDto {
  @IsUUID('all', { message: 'user_id: the id of a member of this account.' })
  user_id!: string;
}

/** Body of PUT /dashboard/api/session/account. */
export class SwitchAccountDto {
  @IsUUID('all', { message: 'account_id: the id of one of your accounts.' })
  account_id!: string;
}

const TOKEN_MESSAGE = 'token: The invitation link is incomplete; open the link from the mail again.';

/** Body of the invitation routes that only need its token. */
export class InvitationTokenDto {
  @IsString({ message: TOKEN_MESSAGE })
  @MaxLength(200, { message: 'token: This invitation is not valid.' })
  token!: string;
}

/** Accepting by choosing a password (a new user of the invited address). */
export class AcceptWithPasswordDto extends InvitationTokenDto {
  @IsString({ message: 'password: Choose a password.' })
  @MaxLength(1000, { message: 'password: Too long.' })
  password!: string;
}

/** Accepting by signing in as the invited address. */
export class AcceptWithSignInDto extends AcceptWithPasswordDto {
  @IsString({ message: 'email: Enter your email address.' })
  @MaxLength(1000, { message: 'email: Too long.' })
  email!: string;
}
