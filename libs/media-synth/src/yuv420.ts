import type { YuvFrame } from './h264-pcm-encoder';

/**
 * RGB (8-bit, packed) to planar YUV 4:2:0 with BT.601 limited-range coefficients — what H.264
 * decoders assume when the stream carries no colour description. The picture is padded to the
 * coded (macroblock-aligned) size by repeating edge pixels; the SPS crops the padding away.
 * Chroma is the average of each 2x2 block.
 */
export function rgbToYuv420(
  rgb: Uint8Array,
  width: number,
  height: number,
  codedWidth: number,
  codedHeight: number,
): YuvFrame {
  const y = new Uint8Array(codedWidth * codedHeight);
  const u = new Uint8Array((codedWidth / 2) * (codedHeight / 2));
  const v = new Uint8Array(u.length);
  const cw = codedWidth / 2;
  for (let py = 0; py < codedHeight; py++) {
    const sy = Math.min(py, height - 1);
    for (let px = 0; px < codedWidth; px++) {
      const i = (sy * width + Math.min(px, width - 1)) * 3;
      const r = rgb[i] as number;
      const g = rgb[i + 1] as number;
      const b = rgb[i + 2] as number;
      y[py * codedWidth + px] = Math.round(16 + 0.257 * r + 0.504 * g + 0.098 * b);
    }
  }
  for (let cy = 0; cy < codedHeight / 2; cy++) {
    for (let cx = 0; cx < cw; cx++) {
      let r = 0;
      let g = 0;
      let b = 0;
      for (let k = 0; k < 4; k++) {
        const sx = Math.min(cx * 2 + (k & 1), width - 1);
        const sy = Math.min(cy * 2 + (k >> 1), height - 1);
        const i = (sy * width + sx) * 3;
        r += rgb[i] as number;
        g += rgb[i + 1] as number;
        b += rgb[i + 2] as number;
      }
      r /= 4;
      g /= 4;
      b /= 4;
      u[cy * cw + cx] = Math.round(128 - 0.148 * r - 0.291 * g + 0.439 * b);
      v[cy * cw + cx] = Math.round(128 + 0.439 * r - 0.368 * g - 0.071 * b);
    }
  }
  return { y, u, v };
}
