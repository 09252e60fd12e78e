/**
 * MSB-first bit writer for H.264 RBSP syntax (u(n), ue(v), se(v), trailing bits) plus the
 * emulation-prevention step that turns an RBSP into NAL unit payload bytes.
 */
export class BitWriter {
  private bytes: Uint8Array;
  private length = 0; // whole bytes written
  private current = 0; // pending bits, MSB first
  private pendingBits = 0;

  constructor(initialCapacity = 1024) {
    this.bytes = new Uint8Array(initialCapacity);
  }

  get byteAligned(): boolean {
    return this.pendingBits === 0;
  }

  /** u(n): `value` as an unsigned `bits`-bit number (bits <= 32). */
  u(bits: number, value: number): this {
    for (let i = bits - 1; i >= 0; i--) this.bit((value >>> i) & 1);
    return this;
  }

  bit(b: number): this {
    this.current = (this.current << 1) | (b & 1);
    if (++this.pendingBits === 8) {
      this.pushByte(this.current);
      this.current = 0;
      this.pendingBits = 0;
    }
    return this;
  }

  /** ue(v): unsigned Exp-Golomb. */
  ue(value: number): this {
    const codeNum = value + 1;
    const len = 32 - Math.clz32(codeNum);
    this.u(len - 1, 0);
    return this.u(len, codeNum);
  }

  /** se(v): signed Exp-Golomb (k>0 -> 2k-1, k<=0 -> -2k). */
  se(value: number): this {
    return this.ue(value > 0 ? 2 * value - 1 : -2 * value);
  }

  /** Zero bits up to the next byte boundary (e.g. pcm_alignment_zero_bit). */
  alignZero(): this {
    while (this.pendingBits !== 0) this.bit(0);
    return this;
  }

  /** Raw bytes; the writer must be byte-aligned. */
  bytesAligned(data: Uint8Array): this {
    if (this.pendingBits !== 0) throw new Error('BitWriter: bytesAligned() needs byte alignment');
    this.reserve(data.length);
    this.bytes.set(data, this.length);
    this.length += data.length;
    return this;
  }

  /** rbsp_trailing_bits(): a stop bit then zero bits to the byte boundary. */
  trailingBits(): this {
    return this.bit(1).alignZero();
  }

  finish(): Uint8Array {
    if (this.pendingBits !== 0) throw new Error('BitWriter: finish() needs byte alignment');
    return this.bytes.slice(0, this.length);
  }

  private pushByte(byte: number): void {
    this.reserve(1);
    this.bytes[this.length++] = byte;
  }

  private reserve(extra: number): void {
    if (this.length + extra <= this.bytes.length) return;
    const grown = new Uint8Array(Math.max(this.bytes.length * 2, this.length + extra));
    grown.set(this.bytes.subarray(0, this.length));
    this.bytes = grown;
  }
}

/**
 * Builds a NAL unit: one header byte then the RBSP with emulation prevention (a 0x03 inserted
 * after any two zero bytes that precede a byte <= 3), so the payload never mimics a start code.
 */
export function buildNalUnit(nalRefIdc: number, nalUnitType: number, rbsp: Uint8Array): Uint8Array {
  const out = new Uint8Array(1 + rbsp.length + Math.ceil(rbsp.length / 2) + 1);
  out[0] = ((nalRefIdc & 3) << 5) | (nalUnitType & 31);
  let n = 1;
  let zeros = 0;
  for (const byte of rbsp) {
    if (zeros >= 2 && byte <= 3) {
      out[n++] = 3;
      zeros = 0;
    }
    out[n++] = byte;
    zeros = byte === 0 ? zeros + 1 : 0;
  }
  return out.slice(0, n);
}
