import { newDeliveryId, newWebhookSecret, randomBase62 } from '@gen/webhook-signature';

describe('newDeliveryId', () => {
  it('is wh_ followed by 24 base62 characters', () => {
    for (let i = 0; i < 1000; i++) expect(newDeliveryId()).toMatch(/^wh_[0-9A-Za-z]{24}$/);
  });

  it('is unique across many draws', () => {
    const ids = new Set(Array.from({ length: 10_000 }, () => newDeliveryId()));
    expect(ids.size).toBe(10_000);
  });
});

describe('newWebhookSecret', () => {
  it('is whsec_ followed by 32 base62 characters, and unique', () => {
    const secrets = Array.from({ length: 1000 }, () => newWebhookSecret());
    for (const secret of secrets) expect(secret).toMatch(/^whsec_[0-9A-Za-z]{32}$/);
    expect(new Set(secrets).size).toBe(secrets.length);
  });
});

describe('randomBase62', () => {
  it('returns exactly the requested length', () => {
    for (const length of [0, 1, 7, 24, 32, 100, 1000]) expect(randomBase62(length)).toHaveLength(length);
  });

  it('uses all 62 characters with no visible bias (rejection sampling, not % 62 on raw bytes)', () => {
    // 620,000 draws: 10,000 expected per character, standard deviation ~99. With `byte % 62` on every
    // byte, 5 in 256 byte values would map to each of '0'-'7' and 4 in 256 to the others: ~12,100
    // against ~9,700, about 20 deviations out. The bounds below sit at about +/-5 deviations (a
    // false failure about once in 30,000 runs).
    const counts = new Map<string, number>();
    for (const ch of randomBase62(620_000)) counts.set(ch, (counts.get(ch) ?? 0) + 1);
    expect(counts.size).toBe(62);
    for (const count of counts.values()) {
      expect(count).toBeGreaterThan(9_500);
      expect(count).toBeLessThan(10_500);
    }
  });

  it('refuses a negative or fractional length', () => {
    expect(() => randomBase62(-1)).toThrow(RangeError);
    expect(() => randomBase62(1.5)).toThrow(RangeError);
  });
});
