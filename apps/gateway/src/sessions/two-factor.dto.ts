import { IsBoolean, IsString, MaxLength } from 'class-validator';

/** A TOTP code from the app (six digits) or, where accepted, a recovery code. */
export class TwoFactorCodeDto {
  @IsString({ message: 'code: Enter the code from your authenticator app.' })
  @MaxLength(100, { message: 'code: Too long.' })
  code!: string;
}

/** Turning two-factor on or off: a code and the password again. */
export class TwoFactorChangeDto extends TwoFactorCodeDto {
  @IsString({ message: 'password: Enter your password to confirm.' })
  @MaxLength(1000, { message: 'password: Too long.' })
  password!: string;
}

/** Body of POST /dashboard/api/sign-in/two-factor. */
export class TwoFactorSignInDto extends TwoFactorCodeDto {
  @IsString({ message: 'challenge: Sign in with your email and password first.' })
  @MaxLength(200, { message: 'challenge: Sign in with your email and password first.' })
  challenge!: string;
}

/** Body of PUT /dashboard/api/account/two-factor-requirement. */
export class TwoFactorRequirementDto {
  @IsBoolean({ message: 'required: Must be true or false.' })
  required!: boolean;
}
