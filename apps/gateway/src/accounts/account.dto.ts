import { IsString, MaxLength } from 'class-validator';

/** Body of POST /dashboard/api/account/password. The rules (and their messages) are in SessionsService. */
export class ChangePasswordDto {
  @IsString({ message: 'current_password: Enter your current password.' })
  @MaxLength(1000, { message: 'current_password: Too long.' })
  current_password!: string;

  @IsString({ message: 'new_password: Enter a new password.' })
  @MaxLength(1000, { message: 'new_password: Too long.' })
  new_password!: string;
}
