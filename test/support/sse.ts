/** One Server-Sent Event as a client sees it. */
export interface SseEvent {
  event: string;
  data: any;
}

export interface SseClient {
  status: number;
  headers: Headers;
  /** The JSON body of a refused request (not a stream). */
  body?: any;
  /** Every event so far. */
  events: SseEvent[];
  /** Each event's id, in the same order (what a reconnect sends as Last-Event-ID). */
  ids: Array<string | undefined>;
  /** Comment lines (heartbeats) seen so far. */
  comments: number;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  /** Resolves with the first event (from now on, or already seen) that matches. */
  next(match: (event: SseEvent) => boolean, timeoutMs?: number): Promise<SseEvent>;
  close(): void;
}

/** Opens `GET {url}` as an event stream and parses it as it arrives (the way EventSource does); `lastEventId` reconnects. */
export async function openSse(url: string, key: string, lastEventId?: string): Promise<SseClient> {
  const abort = new AbortController();
  const headers: Record<string, string> = { authorization: `Bearer ${key}`, accept: 'text/event-stream' };
  if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
  const response = await fetch(url, { headers, signal: abort.signal });
  const events: SseEvent[] = [];
  const ids: Array<string | undefined> = [];
  const waiters: Array<{ match: (e: SseEvent) => boolean; resolve: (e: SseEvent) => void }> = [];
  let comments = 0;
  if (!response.headers.get('content-type')?.startsWith('text/event-stream')) {
    return {
      status: response.status,
      headers: response.headers,
      body: response.status === 204 ? undefined : await response.json(),
      events,
      ids,
      comments,
      ended: Promise.resolve(),
      next: () => Promise.reject(new Error('not a stream')),
      close: () => abort.abort(),
    };
  }
  const client: SseClient = {
    status: response.status,
    headers: response.headers,
    events,
    ids,
    comments: 0,
    ended: Promise.resolve(),
    next(match, timeoutMs = 10_000) {
      const seen = events.find(match);
      if (seen) return Promise.resolve(seen);
      return new Promise<SseEvent>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no matching event within ${timeoutMs} ms; got ${JSON.stringify(events.map((e) => e.event))}`)), timeoutMs);
        waiters.push({ match, resolve: (e) => (clearTimeout(timer), resolve(e)) });
      });
    },
    close: () => abort.abort(),
  };
  client.ended = (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (block.startsWith(':')) {
            comments++;
            client.comments = comments;
            continue;
          }
          const fields = Object.fromEntries(block.split('\n').map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()]));
          if (fields.data === undefined) continue;
          const event = { event: fields.event ?? 'message', data: JSON.parse(fields.data) };
          events.push(event);
          ids.push(fields.id);
          for (const waiter of [...waiters]) {
            if (waiter.match(event)) {
              waiters.splice(waiters.indexOf(waiter), 1);
              waiter.resolve(event);
            }
          }
        }
      }
    } catch (error) {
      if (!abort.signal.aborted) throw error;
    }
  })();
  return client;
}
