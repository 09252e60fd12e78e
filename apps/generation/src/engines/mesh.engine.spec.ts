import type { EngineRequest } from '../ports/engine';
import { MeshEngine } from './mesh.engine';
import { buildStarPrism } from '@gen/media-synth';

// gltf-validator ships no type declarations, so it is loaded untyped.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const validator = require('gltf-validator') as {
  validateBytes(data: Uint8Array, options?: Record<string, unknown>): Promise<GltfReport>;
};

interface GltfReport {
  issues: { numErrors: number; numWarnings: number; messages: Array<{ code: string; message: string }> };
  info: { totalVertexCount: number; totalTriangleCount: number; drawCallCount: number; materialCount: number };
}

function request(overrides: Partial<EngineRequest> = {}): EngineRequest {
  return {
    jobId: 'job-1',
    modelId: 'test-mesh',
    type: 'TEXT_TO_3D',
    prompt: 'a golden crown',
    seed: 11,
    params: {},
    input: {},
    signal: new AbortController().signal,
    upstreamRef: null,
    saveUpstreamRef: () => Promise.resolve(),
    ...overrides,
  };
}

describe('MeshEngine (checked with gltf-validator)', () => {
  const engine = new MeshEngine();

  it.each(['a golden crown', 'a starfish', 'a hexagonal nut', ''])('emits a valid GLB for %j', async (prompt) => {
    const [out] = await engine.generate(request({ prompt }));
    expect(out.contentType).toBe('model/gltf-binary');
    expect(out.extension).toBe('glb');
    expect(out.data.readUInt32LE(0)).toBe(0x46546c67);
    expect(out.data.readUInt32LE(8)).toBe(out.data.length);
    expect(out.data.length % 4).toBe(0);
    const report = await validator.validateBytes(new Uint8Array(out.data));
    expect(report.issues.messages).toEqual([]);
    expect(report.issues.numErrors).toBe(0);
    expect(report.issues.numWarnings).toBe(0);
    expect(report.info.drawCallCount).toBe(1);
    expect(report.info.materialCount).toBe(1);
    expect(report.info.totalTriangleCount).toBeGreaterThan(20);
  });

  it('is deterministic for prompt+seed and varies with the prompt', async () => {
    const [a] = await engine.generate(request());
    expect(a.data.equals((await engine.generate(request()))[0].data)).toBe(true);
    expect(a.data.equals((await engine.generate(request({ prompt: 'a silver spoon' })))[0].data)).toBe(false);
  });

  it('rejects when already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(engine.generate(request({ signal: controller.signal }))).rejects.toMatchObject({ name: 'AbortError' });
  });
});

describe('buildStarPrism', () => {
  it('winds every triangle outward, consistently with its unit normal', () => {
    const mesh = buildStarPrism({ points: 5, innerRatio: 0.45, radius: 1, height: 1, taper: 0.6 });
    const p = (i: number): [number, number, number] => [
      mesh.positions[i * 3]!,
      mesh.positions[i * 3 + 1]!,
      mesh.positions[i * 3 + 2]!,
    ];
    let volume = 0;
    for (let t = 0; t < mesh.indices.length; t += 3) {
      const [a, b, c] = [p(mesh.indices[t]!), p(mesh.indices[t + 1]!), p(mesh.indices[t + 2]!)];
      const u = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
      const v = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
      const cross = [u[1]! * v[2]! - u[2]! * v[1]!, u[2]! * v[0]! - u[0]! * v[2]!, u[0]! * v[1]! - u[1]! * v[0]!];
      const n = mesh.indices[t]! * 3;
      const normal = [mesh.normals[n]!, mesh.normals[n + 1]!, mesh.normals[n + 2]!];
      expect(Math.hypot(...normal)).toBeCloseTo(1, 5);
      expect(cross[0]! * normal[0]! + cross[1]! * normal[1]! + cross[2]! * normal[2]!).toBeGreaterThan(0);
      // Signed volume of the tetrahedron (origin, a, b, c): positive total = outward winding.
      const bxc = [b[1] * c[2] - b[2] * c[1], b[2] * c[0] - b[0] * c[2], b[0] * c[1] - b[1] * c[0]];
      volume += (a[0] * bxc[0]! + a[1] * bxc[1]! + a[2] * bxc[2]!) / 6;
    }
    expect(volume).toBeGreaterThan(0);
  });
});
