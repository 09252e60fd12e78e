import type { BatchLineProblemPayload } from '@gen/contracts';
import { ValidationError } from '@gen/errors';

/** Most refused lines an answer lists (`error.lines`). */
export const MAX_LISTED_LINES = 1_000;
/** Refused lines the message itself names. */
const NAMED_IN_MESSAGE = 3;

/** One refused line as the `422` lists it. */
export interface RefusedLine {
  line: number;
  custom_id: string | null;
  message: string;
}

const named = (p: BatchLineProblemPayload) => `line ${p.line}${p.customId === null ? '' : ` (custom_id "${p.customId}")`}: ${p.message}`;

/**
 * A file refused whole (`invalid_lines: "reject"`, or no line valid): `422 validation_error` whose
 * message names the first bad lines and whose `error.lines` lists them (up to MAX_LISTED_LINES).
 */
export class BatchLinesRefused extends ValidationError {
  readonly lines: RefusedLine[];

  constructor(invalid: readonly BatchLineProblemPayload[], total: number) {
    const count = invalid.length;
    const head = count === total ? `No line of the file is valid (${count} refused)` : `${count} of the file's ${total} lines ${count === 1 ? 'is' : 'are'} not valid`;
    const more = count > NAMED_IN_MESSAGE ? `; and ${count - NAMED_IN_MESSAGE} more (error.lines)` : '';
    const listed = `${invalid.slice(0, NAMED_IN_MESSAGE).map(named).join('; ')}${more}`;
    super(`${head}; no batch was created. ${listed}${listed.endsWith('.') ? '' : '.'}`);
    this.lines = invalid.slice(0, MAX_LISTED_LINES).map((p) => ({ line: p.line, custom_id: p.customId, message: p.message }));
  }
}
