import { ValidationError } from '@gen/errors';
import { LowBalanceAlertsService, operatorActor } from '@gen/gateway';
import { parseInteger } from './commands';

/** `--credits`: a whole number from 0, or `none`; 0 and none turn alerts off. */
export function parseThreshold(value: string | undefined): number | null {
  if (value !== undefined && value.trim() === 'none') return null;
  const credits = parseInteger('credits', value);
  if (credits < 0) throw new ValidationError('--credits must be a whole number from 0 (0 or none turns alerts off)');
  return credits;
}

/** `accounts set-low-balance`: billing checks the bounds; the change is audited as the operator's. */
export async function setLowBalance(
  options: Record<string, unknown>,
  lowBalance: LowBalanceAlertsService,
  out: (human: string, data: unknown) => void,
): Promise<void> {
  const account = typeof options.account === 'string' ? options.account : '';
  const view = await lowBalance.set(account, parseThreshold(typeof options.credits === 'string' ? options.credits : undefined), operatorActor());
  out(
    view.threshold === null
      ? `Account ${account}: low-balance alerts off (available ${view.available})`
      : `Account ${account}: alert when available credits fall below ${view.threshold} (available now ${view.available})`,
    view,
  );
}
