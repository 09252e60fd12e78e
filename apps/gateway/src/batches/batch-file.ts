import { isUtf8 } from 'node:buffer';
import { MAX_BATCH_LINES } from '@gen/contracts';
import { DomainError, ValidationError } from '@gen/errors';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../http-common/json-depth';

/** Longest `custom_id` (OpenAI's batch files keep to the same). */
export const MAX_CUSTOM_ID_LENGTH = 64;
/** What a line may say besides its `custom_id` and `body` (OpenAI's batch format): only this. */
const GENERATE_METHOD = 'POST';
const GENERATE_URL = '/api/v1/generate';
const LINE_FIELDS = new Set(['custom_id', 'body', 'method', 'url']);

/** One line of a batch's file as read: its body still to be checked, or why it cannot be. */
export interface ReadLine {
  /** The line's number in the file, from 1. */
  line: number;
  /** Null when it could not be read (or is the second use of one). */
  customId: string | null;
  /** The `POST /api/v1/generate` body it carries; null when the line was refused already. */
  body: unknown;
  /** Why the line is refused; null when its body is to be checked. */
  problem: string | null;
}

const hasNul = (value: unknown) => JSON.stringify(value).includes('\\u0000');

/**
 * Reads a batch's JSONL file (docs/guide/batches.md): UTF-8, one JSON object a line, LF or CRLF line
 * ends, a leading byte order mark and blank lines at the end ignored. A blank line within the file
 * is a line (refused), so that numbers stay those an editor shows. A file that is not UTF-8 text,
 * has no line, or more than `maxLines` is refused whole (422, 413).
 */
export function readBatchFile(content: Buffer, maxLines = MAX_BATCH_LINES): ReadLine[] {
  if (!isUtf8(content)) throw new ValidationError('The batch file is not UTF-8 text: send one JSON object a line, in UTF-8.');
  let text = content.toString('utf8');
  if (text.startsWith('\uFEFF')) text = text.slice(1);
  const rows = text.split('\n').map((row) => (row.endsWith('\r') ? row.slice(0, -1) : row));
  while (rows.length > 0 && rows[rows.length - 1].trim() === '') rows.pop();
  if (rows.length === 0) throw new ValidationError('The batch file has no lines: send one JSON object a line ({"custom_id": ..., "body": {...}}).');
  if (rows.length > maxLines) {
    throw new DomainError('payload_too_large', `A batch has at most ${maxLines.toLocaleString('en-US')} lines; this file has ${rows.length.toLocaleString('en-US')}.`);
  }
  const seen = new Map<string, number>();
  return rows.map((row, index) => {
    const read = readLine(row, index + 1);
    if (read.customId === null) return read;
    const first = seen.get(read.customId);
    if (first === undefined) {
      seen.set(read.customId, read.line);
      return read;
    }
    return { line: read.line, customId: null, body: null, problem: `custom_id "${read.customId}" is used by line ${first} already: each line needs its own` };
  });
}

function readLine(row: string, line: number): ReadLine {
  const refused = (problem: string, customId: string | null = null): ReadLine => ({ line, customId, body: null, problem });
  if (row.trim() === '') return refused('a blank line: each line is one JSON object');
  if (nestsDeeperThan(Buffer.from(row, 'utf8'), MAX_JSON_DEPTH)) return refused(`nested deeper than ${MAX_JSON_DEPTH} levels`);
  let value: unknown;
  try {
    value = JSON.parse(row);
  } catch {
    return refused('not valid JSON');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return refused('must be a JSON object ({"custom_id": ..., "body": {...}})');
  const fields = value as Record<string, unknown>;
  const id = fields.custom_id;
  const customId = typeof id === 'string' && id.length >= 1 && id.length <= MAX_CUSTOM_ID_LENGTH && !id.includes('\u0000') ? id : null;
  const problems: string[] = [];
  if (id === undefined) problems.push('custom_id is required');
  else if (customId === null) problems.push(`custom_id must be a string of 1 to ${MAX_CUSTOM_ID_LENGTH} characters`);
  for (const field of Object.keys(fields)) if (!LINE_FIELDS.has(field)) problems.push(`${field}: unknown field`);
  if (fields.method !== undefined && fields.method !== GENERATE_METHOD) problems.push(`method must be "${GENERATE_METHOD}"`);
  if (fields.url !== undefined && fields.url !== GENERATE_URL) problems.push(`url must be "${GENERATE_URL}"`);
  const body = fields.body;
  if (body === undefined) problems.push('body is required (what POST /api/v1/generate takes)');
  else if (body === null || typeof body !== 'object' || Array.isArray(body)) problems.push('body must be a JSON object (what POST /api/v1/generate takes)');
  else if (hasNul(body)) problems.push('body contains U+0000, which cannot be stored');
  if (problems.length > 0) return refused(problems.join('; '), customId);
  return { line, customId, body, problem: null };
}
