/**
 * Reads JSON Lines as they arrive: feed it chunks of text split anywhere and it returns each complete
 * line's value; `end()` returns a last line that had no line break. Blank lines are skipped.
 */
export class JsonlParser<T = unknown> {
  private buffer = '';

  push(chunk: string): T[] {
    this.buffer += chunk;
    const lines = this.buffer.split('\n');
    this.buffer = lines.pop() ?? '';
    return lines.flatMap((line) => this.parse(line));
  }

  end(): T[] {
    const rest = this.buffer;
    this.buffer = '';
    return this.parse(rest);
  }

  private parse(line: string): T[] {
    const text = line.endsWith('\r') ? line.slice(0, -1) : line;
    return text.trim() === '' ? [] : [JSON.parse(text) as T];
  }
}

/** Each value of a JSON Lines body as it arrives, without holding the whole body. */
export async function* jsonlValues<T>(body: ReadableStream<Uint8Array>): AsyncGenerator<T, void, undefined> {
  const parser = new JsonlParser<T>();
  const decoder = new TextDecoder();
  const reader = body.getReader();
  try {
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) break;
      yield* parser.push(decoder.decode(chunk.value, { stream: true }));
    }
    yield* parser.push(decoder.decode());
    let last: T[];
    try {
      last = parser.end();
    } catch (error) {
      // A last line cut short: the connection dropped before the body ended (a network error, not bad JSON).
      throw new TypeError('The body ended inside a line.', { cause: error });
    }
    yield* last;
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}
