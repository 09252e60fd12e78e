/**
 * One CSV record (RFC 4180), CRLF-terminated. A field is quoted when it holds a comma, a quote, CR
 * or LF (quotes doubled inside). Text that a spreadsheet would run as a formula (starting with
 * `=`, `+`, `-`, `@`, tab or CR) is prefixed with `'`; numbers are written as they are.
 */
export function csvRow(fields: ReadonlyArray<string | number | null>): string {
  return fields.map(csvField).join(',') + '\r\n';
}

export function csvField(value: string | number | null): string {
  if (value === null) return '';
  if (typeof value === 'number') return String(value);
  const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
