import { isRecord } from '../../ports/engine-kind';

/**
 * The strings at a dotted path (`images.*.url`: `*` takes every item of a list), in order; a list
 * found at the end gives its strings. Empty when nothing is there.
 */
export function stringsAt(root: unknown, path: readonly string[]): string[] {
  let values: unknown[] = [root];
  for (const segment of path) {
    values = values.flatMap((value) => {
      if (segment === '*') return Array.isArray(value) ? value : [];
      if (Array.isArray(value) && /^\d+$/.test(segment)) return [value[Number(segment)]];
      if (isRecord(value)) return [value[segment]];
      return [];
    });
  }
  return values.flatMap((value) => (Array.isArray(value) ? value : [value])).filter((v): v is string => typeof v === 'string' && v !== '');
}

/** The value at a dotted path (`images.0.url`); undefined when any step is missing. */
export function valueAt(root: unknown, path: readonly string[]): unknown {
  let value = root;
  for (const segment of path) {
    if (Array.isArray(value) && /^\d+$/.test(segment)) value = value[Number(segment)];
    else if (isRecord(value)) value = value[segment];
    else return undefined;
  }
  return value;
}
