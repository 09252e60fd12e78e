import { IsString, MaxLength } from 'class-validator';

/** Body of POST /dashboard/api/password-reset. */
export class PasswordResetRequestDto {
  @IsString({ message: 'email: Enter your email address.' })
  @MaxLength(1000, { message: 'email: Too long.' })
  email!: string;
}

/** Body of POST /dashboard/api/password-reset/complete. The password rules (and their messages) are in PasswordResetService. */
export class PasswordResetCompleteDto {
  @IsString({ message: 'token: The reset link is incomplete; open the link from the mail again.' })
  @MaxLength(200, { message: 'token: This reset link is not valid. Ask for a new one.' })
  token!: string;

  @IsString({ message: 'new_password: Enter a new password.' })
  @MaxLength(1000, { message: 'new_password: Too long.' })
  new_password!: string;
}
