import { SetMetadata } from '@nestjs/common';

export const ALLOWED_BEFORE_TWO_FACTOR = 'dashboard:allowed-before-two-factor';

/**
 * Marks a dashboard route a member may use while their account requires two-factor sign-in and they
 * have not set it up yet (the set-up itself, signing out); every other route answers
 * `403 two_factor_enrollment_required` (DashboardSessionGuard).
 */
export const AllowedBeforeTwoFactor = () => SetMetadata(ALLOWED_BEFORE_TWO_FACTOR, true);
