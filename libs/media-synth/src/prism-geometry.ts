/**
 * Flat-shaded "star prism" geometry: a star (or, as innerRatio -> 1, a polygon) outline in the XZ
 * plane, extruded along +Y and tapered towards the top. Caps and each side face get their own
 * vertices so normals are per-face (crisp edges). Triangles wind counter-clockwise seen from
 * outside, as glTF expects for front faces, and each face's normal is derived from that winding.
 */

export interface PrismShape {
  /** Number of star points (>= 3). */
  points: number;
  /** Inner/outer radius ratio in (0, 1]. */
  innerRatio: number;
  /** Outer radius of the bottom outline. */
  radius: number;
  height: number;
  /** Top outline scale relative to the bottom, in (0, 1]. */
  taper: number;
}

export interface MeshGeometry {
  positions: Float32Array;
  normals: Float32Array;
  indices: Uint16Array;
}

type Vec3 = [number, number, number];

export function buildStarPrism(shape: PrismShape): MeshGeometry {
  const ringSize = shape.points * 2;
  const bottom: Vec3[] = [];
  const top: Vec3[] = [];
  for (let k = 0; k < ringSize; k++) {
    const theta = (k * Math.PI) / shape.points;
    const r = shape.radius * (k % 2 === 0 ? 1 : shape.innerRatio);
    // z = -r sin(theta) makes increasing k run counter-clockwise seen from +Y.
    const x = r * Math.cos(theta);
    const z = -r * Math.sin(theta);
    bottom.push([x, -shape.height / 2, z]);
    top.push([x * shape.taper, shape.height / 2, z * shape.taper]);
  }

  const positions: number[] = [];
  const normals: number[] = [];
  const indices: number[] = [];
  const addFace = (corners: Vec3[], triangles: Array<[number, number, number]>): void => {
    const base = positions.length / 3;
    const [a, b, c] = triangles[0] as [number, number, number];
    const n = faceNormal(corners[a] as Vec3, corners[b] as Vec3, corners[c] as Vec3);
    for (const p of corners) {
      positions.push(...p);
      normals.push(...n);
    }
    for (const t of triangles) indices.push(base + t[0], base + t[1], base + t[2]);
  };

  // Caps: a fan from the centre (index 0) over the ring (1..ringSize).
  const fan = (reverse: boolean): Array<[number, number, number]> =>
    Array.from({ length: ringSize }, (_, k) => {
      const i = 1 + k;
      const j = 1 + ((k + 1) % ringSize);
      return reverse ? [0, j, i] : [0, i, j];
    });
  addFace([[0, shape.height / 2, 0], ...top], fan(false));
  addFace([[0, -shape.height / 2, 0], ...bottom], fan(true));

  // Sides: planar trapezoids b_k, b_k+1, t_k+1, t_k (the taper keeps top and bottom edges parallel).
  for (let k = 0; k < ringSize; k++) {
    const next = (k + 1) % ringSize;
    addFace(
      [bottom[k] as Vec3, bottom[next] as Vec3, top[next] as Vec3, top[k] as Vec3],
      [
        [0, 1, 2],
        [0, 2, 3],
      ],
    );
  }
  return {
    positions: Float32Array.from(positions),
    normals: Float32Array.from(normals),
    indices: Uint16Array.from(indices),
  };
}

function faceNormal(a: Vec3, b: Vec3, c: Vec3): Vec3 {
  const [ux, uy, uz] = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
  const [vx, vy, vz] = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
  const n: Vec3 = [uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx];
  const len = Math.hypot(n[0], n[1], n[2]);
  return [n[0] / len, n[1] / len, n[2] / len];
}
