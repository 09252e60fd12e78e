import { IsString, MaxLength } from 'class-validator';

/** Body of sign-up and sign-in. Lengths are checked loosely here; the rules (and their messages) are in SessionsService. */
export class CredentialsDto {
  @IsString({ message: 'email: Enter your email address.' })
  @MaxLength(1000, { message: 'email: Too long.' })
  email!: string;

  @IsString({ message: 'password: Enter your password.' })
  @MaxLength(1000, { message: 'password: Too long.' })
  password!: string;
}
