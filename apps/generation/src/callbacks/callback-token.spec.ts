import { randomBytes, randomUUID } from 'node:crypto';
import { callbackToken, readCallbackToken } from './callback-token';

describe('callback tokens', () => {
  const key = randomBytes(32);
  const jobId = randomUUID();

  it('name their job for the provider and key that made them', () => {
    const token = callbackToken(key, 'replicate', jobId);
    expect(token).toMatch(/^[0-9a-f]{32}[A-Za-z0-9_-]{32}$/);
    expect(readCallbackToken(key, 'replicate', token)).toBe(jobId);
  });

  it('are refused under another key, for another provider, or altered in any character', () => {
    const token = callbackToken(key, 'fal', jobId);
    expect(readCallbackToken(randomBytes(32), 'fal', token)).toBeNull();
    expect(readCallbackToken(key, 'replicate', token)).toBeNull();
    for (const i of [0, 31, 32, 63]) {
      const altered = token.slice(0, i) + (token[i] === 'a' ? 'b' : 'a') + token.slice(i + 1);
      expect(readCallbackToken(key, 'fal', altered)).toBeNull();
    }
    // Another job's id with this job's MAC.
    expect(readCallbackToken(key, 'fal', randomUUID().replace(/-/g, '') + token.slice(32))).toBeNull();
  });

  it('refuse anything that is not one (no throw)', () => {
    for (const text of ['', 'x', 'a'.repeat(64), `${jobId}`, '../../etc', 'é'.repeat(64)]) expect(readCallbackToken(key, 'cog', text)).toBeNull();
    expect(() => callbackToken(key, 'cog', 'not-a-uuid')).toThrow(RangeError);
  });
});
