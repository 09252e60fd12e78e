/** One Server-Sent Events record: its `event`, `data` (lines joined by "\n") and `id`. */
export interface SseRecord {
  event: string;
  data: string;
  id: string | null;
  /** A `retry:` field: the reconnection delay the server asks for, in ms. */
  retryMs: number | null;
}

/**
 * Parses a text/event-stream incrementally (the HTML Living Standard's rules): feed it chunks as they
 * arrive, in any split, and it yields each complete record. Comment lines (":") are skipped; a record
 * with no data and only a `retry:` is yielded with empty data, so the caller learns the delay.
 */
export class SseParser {
  private buffer = '';
  private event = '';
  private data: string[] = [];
  private id: string | null = null;
  private retryMs: number | null = null;
  private seen = false;

  /** The last chunk ended with "\r": a "\n" starting the next one belongs to that line break. */
  private skipLf = false;

  push(chunk: string): SseRecord[] {
    this.buffer += chunk;
    if (this.skipLf && this.buffer.startsWith('\n')) this.buffer = this.buffer.slice(1);
    if (this.buffer !== '') this.skipLf = false;
    const records: SseRecord[] = [];
    for (;;) {
      const match = /\r\n|\r|\n/.exec(this.buffer);
      if (!match) break;
      const line = this.buffer.slice(0, match.index);
      this.buffer = this.buffer.slice(match.index + match[0].length);
      if (match[0] === '\r' && this.buffer === '') this.skipLf = true;
      const record = this.line(line);
      if (record) records.push(record);
    }
    return records;
  }

  private line(line: string): SseRecord | null {
    if (line === '') {
      if (!this.seen) return null;
      const record: SseRecord = { event: this.event || 'message', data: this.data.join('\n'), id: this.id, retryMs: this.retryMs };
      this.event = '';
      this.data = [];
      this.retryMs = null;
      this.seen = false;
      return record;
    }
    if (line.startsWith(':')) return null;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'event':
        this.event = value;
        break;
      case 'data':
        this.data.push(value);
        break;
      case 'id':
        if (!value.includes('\0')) this.id = value;
        break;
      case 'retry':
        if (/^\d+$/.test(value)) this.retryMs = Number(value);
        break;
      default:
        return null;
    }
    this.seen = true;
    return null;
  }
}
