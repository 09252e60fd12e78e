/**
 * Polls `read` until `done` holds or `timeoutMs` passes, and returns the last value (the caller's
 * `expect` then says what was wrong): for effects that are eventual (an event consumed by another
 * service, a job finishing in the background).
 */
export async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 10_000, everyMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  while (!done(value) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, everyMs));
    value = await read();
  }
  return value;
}
