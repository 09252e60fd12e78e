import { hslToRgb, type PromptRng, type Rgb } from './prompt-seed';

/**
 * A tiny procedural "picture" shared by the image and video engines: a two-colour gradient with a
 * few anti-aliased shapes on top. All layout and colour choices come from a prompt RNG; `t` (in
 * seconds) moves the shapes and rotates the background hue so video frames animate.
 * Coordinates are normalised (0..1 of the shorter side) so the picture scales with the canvas.
 */

export type ShapeKind = 'circle' | 'square' | 'ring';

export interface SceneShape {
  kind: ShapeKind;
  /** Centre at t=0, in 0..1 of width/height. */
  x: number;
  y: number;
  /** Radius / half-side, in units of the shorter canvas side. */
  size: number;
  /** Velocity in canvas-fractions per second (bounces off the edges). */
  vx: number;
  vy: number;
  color: Rgb;
  alpha: number;
}

export interface Scene {
  /** Background gradient endpoints as HSL hues plus shared saturation/lightness. */
  hueA: number;
  hueB: number;
  saturation: number;
  lightness: number;
  /** Gradient direction in radians. */
  angle: number;
  /** Background hue rotation, degrees per second. */
  hueSpeed: number;
  shapes: SceneShape[];
}

const SHAPE_KINDS: readonly ShapeKind[] = ['circle', 'square', 'ring'];

export function createScene(rng: PromptRng, shapeCount: number): Scene {
  const hueA = rng.range(0, 360);
  const shapes: SceneShape[] = [];
  for (let i = 0; i < shapeCount; i++) {
    const speed = rng.range(0.08, 0.3);
    const heading = rng.range(0, Math.PI * 2);
    shapes.push({
      kind: rng.pick(SHAPE_KINDS),
      x: rng.range(0.15, 0.85),
      y: rng.range(0.15, 0.85),
      size: rng.range(0.06, 0.22),
      vx: speed * Math.cos(heading),
      vy: speed * Math.sin(heading),
      color: rng.color(),
      alpha: rng.range(0.55, 0.95),
    });
  }
  return {
    hueA,
    hueB: hueA + rng.range(60, 200),
    saturation: rng.range(0.45, 0.8),
    lightness: rng.range(0.35, 0.6),
    angle: rng.range(0, Math.PI * 2),
    hueSpeed: rng.range(20, 60) * (rng.next() < 0.5 ? -1 : 1),
    shapes,
  };
}

/** Triangle wave keeping a moving coordinate inside [0, 1] (a bounce). */
function bounce(value: number): number {
  const m = ((value % 2) + 2) % 2;
  return m <= 1 ? m : 2 - m;
}

/**
 * Paints `scene` at time `t` into `out` (row-major, `channels` = 3 for RGB or 4 for RGBA with
 * opaque alpha). Each shape only touches its bounding box, so large images stay cheap.
 */
export function renderScene(
  out: Uint8Array,
  width: number,
  height: number,
  channels: 3 | 4,
  scene: Scene,
  t: number,
): void {
  const a = hslToRgb(scene.hueA + scene.hueSpeed * t, scene.saturation, scene.lightness);
  const b = hslToRgb(scene.hueB + scene.hueSpeed * t, scene.saturation, scene.lightness);
  const dx = Math.cos(scene.angle);
  const dy = Math.sin(scene.angle);
  // Project the corners to normalise the gradient parameter to 0..1 across the canvas.
  const proj = [0, (width - 1) * dx, (height - 1) * dy, (width - 1) * dx + (height - 1) * dy];
  const pMin = Math.min(...proj);
  const pSpan = Math.max(...proj) - pMin || 1;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const f = (x * dx + y * dy - pMin) / pSpan;
      const i = (y * width + x) * channels;
      out[i] = a[0] + (b[0] - a[0]) * f;
      out[i + 1] = a[1] + (b[1] - a[1]) * f;
      out[i + 2] = a[2] + (b[2] - a[2]) * f;
      if (channels === 4) out[i + 3] = 255;
    }
  }
  const unit = Math.min(width, height);
  for (const shape of scene.shapes) {
    const cx = bounce(shape.x + shape.vx * t) * (width - 1);
    const cy = bounce(shape.y + shape.vy * t) * (height - 1);
    paintShape(out, width, height, channels, shape, cx, cy, shape.size * unit);
  }
}

function paintShape(
  out: Uint8Array,
  width: number,
  height: number,
  channels: number,
  shape: SceneShape,
  cx: number,
  cy: number,
  radius: number,
): void {
  const x0 = Math.max(0, Math.floor(cx - radius - 1));
  const x1 = Math.min(width - 1, Math.ceil(cx + radius + 1));
  const y0 = Math.max(0, Math.floor(cy - radius - 1));
  const y1 = Math.min(height - 1, Math.ceil(cy + radius + 1));
  const ringHalfWidth = Math.max(1, radius * 0.18);
  for (let y = y0; y <= y1; y++) {
    for (let x = x0; x <= x1; x++) {
      const ox = x - cx;
      const oy = y - cy;
      // Signed distance to the shape's edge (negative inside); 1-pixel ramp gives anti-aliasing.
      let d: number;
      if (shape.kind === 'square') d = Math.max(Math.abs(ox), Math.abs(oy)) - radius;
      else if (shape.kind === 'ring') d = Math.abs(Math.hypot(ox, oy) - radius * 0.8) - ringHalfWidth;
      else d = Math.hypot(ox, oy) - radius;
      const coverage = Math.min(1, Math.max(0, 0.5 - d));
      if (coverage === 0) continue;
      const alpha = coverage * shape.alpha;
      const i = (y * width + x) * channels;
      for (let c = 0; c < 3; c++) {
        const under = out[i + c] as number;
        out[i + c] = under + ((shape.color[c] as number) - under) * alpha;
      }
    }
  }
}
