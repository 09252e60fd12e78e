import { randomUUID } from 'node:crypto';
import { getMetadataStorage } from 'class-validator';
import { Broadcasts } from '../messages/subjects';
import { BROADCAST_PAYLOADS, PAYLOAD_CLASSES, type PayloadClass } from '../messages/payload-classes';
import { NESTED_SHAPES } from './nested';
import { quickCheck } from './quick-check';
import { knownProperties, validateShape } from './validate-shape';

/**
 * quickCheck (the compiled rules of a payload class) may only say "passes" where validateShape
 * says so too: every message class, fed valid-looking and broken payloads made from its own rules.
 */
const classes = [...new Set<PayloadClass>([...Object.values(PAYLOAD_CLASSES), ...Object.values(BROADCAST_PAYLOADS).flatMap((b) => (b.payload ? [b.payload] : []))])];

/** A deterministic pseudo-random sequence, so a failure repeats. */
function random(seed: number): () => number {
  let s = seed;
  return () => ((s = (s * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
}

function nestedShape(shape: PayloadClass, property: string): PayloadClass | undefined {
  for (let c: unknown = shape; typeof c === 'function'; c = Object.getPrototypeOf(c)) {
    const found = NESTED_SHAPES.get(c)?.get(property);
    if (found) return (found.each ? undefined : found.shape()) as PayloadClass | undefined;
  }
  return undefined;
}

function sample(shape: PayloadClass, next: () => number, depth = 0): Record<string, unknown> {
  const rules = getMetadataStorage().getTargetValidationMetadatas(shape, '', true, false);
  const value: Record<string, unknown> = {};
  for (const property of knownProperties(shape)) {
    const allowed = rules.filter((r) => r.propertyName === property && r.name === 'isIn').flatMap((r) => r.constraints[0] as unknown[]);
    const nested = nestedShape(shape, property);
    const pool: unknown[] = ['text', '', 3, 2.5, NaN, Infinity, null, undefined, true, {}, [], [{}], randomUUID(), ...allowed, ...allowed];
    if (nested && depth < 3) pool.push(sample(nested, next, depth + 1), sample(nested, next, depth + 1), sample(nested, next, depth + 1));
    const picked = pool[Math.floor(next() * pool.length)];
    if (picked !== undefined || next() < 0.5) value[property] = picked;
  }
  return value;
}

describe('quickCheck (compiled payload rules)', () => {
  it('never passes a payload validateShape refuses, for any message class', () => {
    const next = random(34);
    let compiledClasses = 0;
    let passed = 0;
    for (const shape of classes) {
      const check = quickCheck(shape);
      if (!check) continue;
      compiledClasses++;
      for (let i = 0; i < 300; i++) {
        const payload = sample(shape, next);
        if (!check(payload)) continue;
        passed++;
        expect({ shape: shape.name, payload, result: validateShape(shape, payload) }).toMatchObject({ result: { ok: true } });
      }
      expect(check(null)).toBe(false);
      expect(check([])).toBe(false);
    }
    expect(compiledClasses).toBeGreaterThan(5);
    expect(passed).toBeGreaterThan(0);
  });

  it('compiles the final-state broadcast and passes a real one', () => {
    const shape = BROADCAST_PAYLOADS[Broadcasts.generationChanged].payload as PayloadClass;
    const check = quickCheck(shape);
    expect(check).not.toBeNull();
    const record = {
      id: randomUUID(), status: 'completed', type: 'TEXT_TO_IMAGE', model: 'pixel-flux-1', prompt: 'a lighthouse', output_url: 'https://cdn/x.png',
      credits_charged: 4, error: null, created_at: 'x', started_at: 'y', completed_at: 'z', canceled_at: null, queue_position: null, progress: 1,
      output_expires_at: null, input: {}, metadata: {}, outputs: [], added_by_a_newer_sender: 1,
    };
    expect(check?.({ accountId: randomUUID(), record })).toBe(true);
    expect(check?.({ accountId: randomUUID(), record: { ...record, status: 'done' } })).toBe(false);
    expect(check?.({ accountId: 7, record })).toBe(false);
  });
});
