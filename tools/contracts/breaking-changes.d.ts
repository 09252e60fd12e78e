/** One line per breaking change from `before` to `after` (breaking-changes.js). */
export function breakingChanges(before: object, after: object): string[];
export const RULES: string[];
