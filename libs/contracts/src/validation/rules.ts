import { ValidateBy, ValidateIf, ValidationOptions } from 'class-validator';

/**
 * Small rules that class-validator's own decorators do not say as readably. Each message starts with
 * `$property`, so `validateShape` reports `models[3].engine.retries must be an integer between 0 and 10`.
 */

/** Checked only when given: `null` is a value (refused where the rule refuses it), `undefined` is not (unlike `@IsOptional`). */
export const IfGiven = (): PropertyDecorator => ValidateIf((_object: object, value: unknown) => value !== undefined);

/** Always present, and may be `null` (checked unless null; absent is refused, unlike `@IsOptional`). */
export const Nullable = (): PropertyDecorator => ValidateIf((_object: object, value: unknown) => value !== null);

/** A whole number in [min, max]. */
export function IntBetween(min: number, max: number): PropertyDecorator {
  return Rule('intBetween', (value) => typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max, `must be an integer between ${min} and ${max}`);
}

/** Refused with `$property <message>` unless `test` passes (`options.message` replaces it, e.g. one line per bad item). */
export function Rule(name: string, test: (value: unknown) => boolean, message: string, options?: ValidationOptions): PropertyDecorator {
  return ValidateBy({ name, validator: { validate: test, defaultMessage: () => `$property ${message}` } }, options);
}
