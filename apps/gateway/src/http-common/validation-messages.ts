import type { ValidationError as ClassValidatorError } from '@nestjs/common';

/**
 * The order in which a field's failed rules are considered: presence, then the value's kind, then
 * emptiness, then everything else (length, range, format) in the order the DTO declares them. Only
 * the first is reported: a missing field is "required", not also "too long" and "not a string".
 */
const RULE_ORDER = [
  'whitelistValidation',
  'isDefined',
  'isString',
  'isInt',
  'isNumber',
  'isBoolean',
  'isArray',
  'isObject',
  'isIn',
  'isEnum',
  'isNotEmpty',
  'arrayNotEmpty',
];

function rank(rule: string): number {
  const index = RULE_ORDER.indexOf(rule);
  return index === -1 ? RULE_ORDER.length : index;
}

/** The one message that applies first to a field (see RULE_ORDER), named by its path. */
function firstMessage(error: ClassValidatorError, path: string, parent: string): string | undefined {
  const rules = Object.entries(error.constraints ?? {});
  if (rules.length === 0) return undefined;
  // A stable sort: rules of equal rank keep the DTO's declaration order.
  const [rule, text] = rules.map((entry, index) => ({ entry, index })).sort((a, b) => rank(a.entry[0]) - rank(b.entry[0]) || a.index - b.index)[0].entry;
  if (rule === 'whitelistValidation') return `${path}: unknown field`;
  return text.startsWith(error.property) ? `${parent ? parent + '.' : ''}${text}` : `${path}: ${text}`;
}

/** One message per invalid field (nested fields by their dotted path), in the body's field order. */
export function validationMessages(errors: ClassValidatorError[], parent = ''): string[] {
  return errors.flatMap((error) => {
    const path = parent ? `${parent}.${error.property}` : error.property;
    const own = firstMessage(error, path, parent);
    return own !== undefined ? [own] : validationMessages(error.children ?? [], path);
  });
}
