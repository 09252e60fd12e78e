import { getMetadataStorage } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';

/**
 * class-validator looks up a class's rules on every object it validates by walking every class it
 * knows (`instanceof` against each, then filters): with this repository's few hundred payload and
 * DTO classes that was most of a NATS payload check, at every process boundary and on every HTTP
 * body (bench/HISTORY.md, issue 34). The rules of a class are fixed once its module has loaded, so
 * the answer is kept per (class, options) and forgotten whenever a rule is added, which keeps it
 * exactly what the library would have answered. Installed once per process, on the one storage
 * the library keeps (a global), by importing this module.
 */
type Lookup = (target: new (...args: never[]) => unknown, schema: string, always: boolean, strictGroups: boolean, groups?: string[]) => ValidationMetadata[];

interface Memoised {
  __genMetadataMemo?: true;
}

export function memoiseValidationMetadata(): void {
  const storage = getMetadataStorage() as unknown as Record<string, unknown> & Memoised;
  if (storage.__genMetadataMemo) return;
  storage.__genMetadataMemo = true;
  const lookup = (storage.getTargetValidationMetadatas as Lookup).bind(storage);
  let byTarget = new Map<unknown, Map<string, ValidationMetadata[]>>();
  storage.getTargetValidationMetadatas = ((target, schema, always, strictGroups, groups) => {
    let known = byTarget.get(target);
    if (!known) byTarget.set(target, (known = new Map()));
    const key = `${schema}\u0000${always}\u0000${strictGroups}\u0000${groups ? JSON.stringify(groups) : ''}`;
    let rules = known.get(key);
    if (!rules) known.set(key, (rules = lookup(target, schema, always, strictGroups, groups)));
    // A copy: a caller that changed the array it got would otherwise change every later answer.
    return rules.slice();
  }) satisfies Lookup;
  for (const name of ['addValidationMetadata', 'addValidationSchema', 'addConstraintMetadata'] as const) {
    const add = (storage[name] as (...args: unknown[]) => void).bind(storage);
    storage[name] = (...args: unknown[]) => {
      byTarget = new Map();
      add(...args);
    };
  }
}

memoiseValidationMetadata();
