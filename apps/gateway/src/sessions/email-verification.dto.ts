import { IsString, MaxLength } from 'class-validator';

/** Body of POST /dashboard/api/email-verification/verify: the token of the mail's link. */
export class VerifyEmailDto {
  @IsString({ message: 'token: The verification link is incomplete; open the link from the mail again.' })
  @MaxLength(200, { message: 'token: This verification link is not valid. Ask for a new one.' })
  token!: string;
}
