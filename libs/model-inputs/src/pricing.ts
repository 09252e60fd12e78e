import type { InputsSchema } from './input-schema';

/**
 * Prices that follow inputs (docs/guide/models.md, "Prices"). A model's `price_multipliers` name
 * numeric inputs; the price of a generation is
 *
 *     credits × value₁ × value₂ × ...   rounded up to a whole credit
 *
 * with each value as applied (the customer's, or the input's default). It is computed exactly in
 * integers: each value is taken to 6 decimal places (an integer input exactly), the product is a
 * fraction over 10^(6·k), and the division rounds up. No floating point touches the amount.
 */

/** Largest price a catalogue may make possible (credits × every multiplier at its maximum): an int4 with room. */
export const MAX_PRICE = 1_000_000_000;
const DECIMALS = 6;
const SCALE = 10n ** BigInt(DECIMALS);

/** A value as an exact fraction `numerator / 10^6` (integers: `n × 10^6`). */
function scaled(value: number): bigint {
  if (Number.isInteger(value)) return BigInt(value) * SCALE;
  const [whole, fraction = ''] = value.toFixed(DECIMALS).split('.');
  const sign = whole.startsWith('-') ? -1n : 1n;
  return sign * (BigInt(whole.replace('-', '')) * SCALE + BigInt(fraction.padEnd(DECIMALS, '0')));
}

/**
 * The price of one generation: `credits` times the applied value of each multiplier input, rounded
 * up. A multiplier missing from the input counts as 1 (it cannot be: the catalogue requires each to
 * have a default or be required).
 */
export function priceFor(credits: number, multipliers: readonly string[], input: Readonly<Record<string, unknown>>): number {
  let numerator = BigInt(credits);
  let denominator = 1n;
  for (const name of multipliers) {
    const value = input[name];
    if (typeof value !== 'number' || !Number.isFinite(value)) continue;
    numerator *= scaled(value);
    denominator *= SCALE;
  }
  if (numerator <= 0n) return 0;
  return Number((numerator + denominator - 1n) / denominator);
}

/** How the price is computed, in words for GET /models: `4 credits × num_outputs, rounded up to a whole credit`. */
export function pricingText(credits: number, multipliers: readonly string[]): string {
  const each = `${credits} credit${credits === 1 ? '' : 's'}`;
  if (multipliers.length === 0) return `${each} per generation`;
  return `${each} × ${multipliers.join(' × ')} (the values as applied, defaults included), rounded up to a whole credit`;
}

/**
 * Checks an operator's `price_multipliers` against the model's schema: each names a numeric input
 * with a minimum of at least 0 and a maximum, and a default or `required` (so every generation has a
 * value), and the largest possible price stays within MAX_PRICE. Returns the list, or null.
 */
export function checkPriceMultipliers(
  raw: unknown,
  schema: InputsSchema,
  credits: number,
  where: string,
  problems: string[],
): string[] | null {
  if (raw === undefined) return [];
  if (!Array.isArray(raw) || !raw.every((n): n is string => typeof n === 'string')) {
    problems.push(`${where} must be a list of numeric input names, such as ["num_outputs"]`);
    return null;
  }
  const start = problems.length;
  if (new Set(raw).size !== raw.length) problems.push(`${where} names an input twice`);
  let largest = BigInt(credits) * SCALE;
  let scale = SCALE;
  for (const name of raw) {
    const property = schema.properties[name];
    if (!property) {
      problems.push(`${where}: "${name}" is not an input of the model (declare it in inputs)`);
      continue;
    }
    if (property.type !== 'integer' && property.type !== 'number') {
      problems.push(`${where}: "${name}" must be an integer or number input`);
      continue;
    }
    if (property.minimum === undefined || property.minimum < 0 || property.maximum === undefined) {
      problems.push(`${where}: "${name}" needs a minimum of 0 or more and a maximum, so the price is bounded`);
      continue;
    }
    if (property.default === undefined && !schema.required?.includes(name)) {
      problems.push(`${where}: "${name}" needs a default or to be required, so every generation has a price`);
      continue;
    }
    largest *= scaled(property.maximum);
    scale *= SCALE;
  }
  if (problems.length === start && (largest + scale - 1n) / scale > BigInt(MAX_PRICE)) {
    problems.push(`${where}: at every multiplier's maximum the price would exceed ${MAX_PRICE} credits`);
  }
  return problems.length > start ? null : raw;
}
