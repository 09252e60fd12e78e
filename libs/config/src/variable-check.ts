import { Rule, validateShape } from '@gen/contracts';
import { Transform } from 'class-transformer';

/**
 * A variable's check compiled into class-validator, so the environment is validated the way every
 * other edge is (docs/design/decisions/validation.md): a class with one property named after the
 * variable, `read` turning its text into a value (a class-transformer `@Transform`), `rules` checking
 * the value, and `validateShape` reporting the first rule that fails (`PORT must be an integer (got "x")`).
 */
export interface VariableCheck<T> {
  /** The text as a value to check (a number, a flag...), or the text itself when it is not one. */
  read?: (text: string) => unknown;
  /** First failing reported: a type's rule before a range's. Messages say `$property ...` (`$value`: the value read). */
  rules?: PropertyDecorator[];
  /** The checked value as the code gets it (scaled, without a trailing slash...). */
  finish?: (value: never) => T;
}

export type Parse<T> = (text: string, problem: (message: string) => void) => T | undefined;

export function compileCheck<T>(name: string, check: VariableCheck<T>): Parse<T> {
  class Value {}
  // validateShape reports the last rule registered that failed: registered in reverse, the first listed.
  for (const rule of [...(check.rules ?? [])].reverse()) rule(Value.prototype, name);
  const read = check.read;
  if (read) Transform(({ value }: { value: string }) => read(value))(Value.prototype, name);
  const finish = check.finish ?? ((value: unknown) => value as T);
  // No rule (any text): nothing to validate (class-validator refuses a class it knows no rule of).
  if (!check.rules?.length) return (text) => finish((read ? read(text) : text) as never);
  return (text, problem) => {
    const result = validateShape(Value, { [name]: text });
    if (!result.ok) {
      result.problems.forEach(problem);
      return undefined;
    }
    return finish((result.value as Record<string, unknown>)[name] as never);
  };
}

/** `$property <message>` unless `test` passes (`name`: the constraint's, one per rule of a variable). */
export const rule = (name: string, test: (value: unknown) => boolean, message: string): PropertyDecorator => Rule(name, test, message);

/** A number in [min, max] (either open). */
export function between(range: { min?: number; max?: number }): PropertyDecorator {
  return rule(
    'between',
    (value) => typeof value === 'number' && (range.min === undefined || value >= range.min) && (range.max === undefined || value <= range.max),
    `must be between ${range.min ?? '-inf'} and ${range.max ?? 'inf'} (got $value)`,
  );
}
