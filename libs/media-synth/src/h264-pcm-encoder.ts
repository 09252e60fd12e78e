import { BitWriter, buildNalUnit } from './bit-writer';

/**
 * A minimal H.264 "encoder" with no compression: every macroblock is coded as I_PCM (raw 8-bit
 * 4:2:0 samples), which any conforming decoder must accept. It exists so the video engine can
 * emit real, decodable H.264 without shipping an encoder binary. Stream layout:
 * Constrained Baseline, CAVLC, one slice per picture, an IDR every `idrInterval` pictures and
 * reference I slices in between, POC type 2 (output order = decode order), frame cropping when
 * the size is not a multiple of 16. Samples are emitted as MP4/AVCC (4-byte length prefixes).
 */

export interface H264PcmConfig {
  /** Display size; must be even (4:2:0 crop units are 2 pixels). */
  width: number;
  height: number;
  /** Frames per second, used only to pick a plausible level_idc. */
  fps: number;
  /** Pictures between IDRs (default 30). */
  idrInterval?: number;
}

/** Planar 4:2:0 picture at the coded (macroblock-aligned) size. */
export interface YuvFrame {
  y: Uint8Array;
  u: Uint8Array;
  v: Uint8Array;
}

export interface EncodedPicture {
  /** AVCC sample: 4-byte big-endian NAL length + slice NAL unit. */
  data: Uint8Array;
  key: boolean;
}

const NAL_SLICE = 1;
const NAL_IDR = 5;
const NAL_SPS = 7;
const NAL_PPS = 8;
const PROFILE_BASELINE = 66;
const LOG2_MAX_FRAME_NUM = 4;
const MB_TYPE_I_PCM = 25; // mb_type value of I_PCM in I slices
const SLICE_TYPE_I_ALL = 7; // I, and every slice of the picture is I

// [level_idc, MaxMBPS, MaxFS, MaxBR (kbit/s)] from H.264 Table A-1.
const LEVELS: ReadonlyArray<readonly [number, number, number, number]> = [
  [10, 1485, 99, 64], [11, 3000, 396, 192], [12, 6000, 396, 384], [13, 11880, 396, 768],
  [20, 11880, 396, 2000], [21, 19800, 792, 4000], [22, 20250, 1620, 4000], [30, 40500, 1620, 10000],
  [31, 108000, 3600, 14000], [32, 216000, 5120, 20000], [40, 245760, 8192, 20000], [41, 245760, 8192, 50000],
  [42, 522240, 8704, 50000], [50, 589824, 22080, 135000], [51, 983040, 36864, 240000],
];

export class H264PcmEncoder {
  readonly codedWidth: number;
  readonly codedHeight: number;
  readonly mbWidth: number;
  readonly mbHeight: number;
  readonly levelIdc: number;
  /** SPS and PPS NAL units (header byte included, no start code / length prefix). */
  readonly sps: Uint8Array;
  readonly pps: Uint8Array;
  private readonly idrInterval: number;
  private pictureCount = 0;
  private idrCount = 0;

  constructor(private readonly config: H264PcmConfig) {
    if (config.width < 2 || config.height < 2 || config.width % 2 || config.height % 2) {
      throw new RangeError('H264PcmEncoder: width and height must be even and >= 2');
    }
    this.mbWidth = Math.ceil(config.width / 16);
    this.mbHeight = Math.ceil(config.height / 16);
    this.codedWidth = this.mbWidth * 16;
    this.codedHeight = this.mbHeight * 16;
    this.idrInterval = Math.max(1, Math.floor(config.idrInterval ?? 30));
    this.levelIdc = pickLevel(this.mbWidth * this.mbHeight, config.fps);
    this.sps = this.buildSps();
    this.pps = this.buildPps();
  }

  /** RFC 6381 codec string, e.g. `avc1.42C015`. */
  get codecString(): string {
    return `avc1.${hex(this.sps[1] as number)}${hex(this.sps[2] as number)}${hex(this.sps[3] as number)}`;
  }

  /** AVCDecoderConfigurationRecord (ISO/IEC 14496-15 §5.3.3.1), the MP4 `avcC` payload. */
  decoderConfigurationRecord(): Uint8Array {
    const out = new Uint8Array(11 + this.sps.length + this.pps.length);
    const view = new DataView(out.buffer);
    const [profile, compat, level] = [this.sps[1] as number, this.sps[2] as number, this.sps[3] as number];
    out.set([1, profile, compat, level, 0xff, 0xe1]); // version 1, 4-byte NAL lengths, one SPS
    view.setUint16(6, this.sps.length);
    out.set(this.sps, 8);
    let p = 8 + this.sps.length;
    out[p++] = 1; // one PPS
    view.setUint16(p, this.pps.length);
    out.set(this.pps, p + 2);
    return out;
  }

  /** Encodes the next picture in decode order. Planes must be at the coded size. */
  encode(frame: YuvFrame): EncodedPicture {
    const { codedWidth: w, codedHeight: h } = this;
    if (frame.y.length !== w * h || frame.u.length !== (w * h) / 4 || frame.v.length !== (w * h) / 4) {
      throw new RangeError('H264PcmEncoder: plane sizes do not match the coded size');
    }
    const sinceIdr = this.pictureCount % this.idrInterval;
    const idr = sinceIdr === 0;
    this.pictureCount++;

    const bw = new BitWriter(16 + this.mbWidth * this.mbHeight * 390);
    // slice_header()
    bw.ue(0); // first_mb_in_slice
    bw.ue(SLICE_TYPE_I_ALL);
    bw.ue(0); // pic_parameter_set_id
    bw.u(LOG2_MAX_FRAME_NUM, sinceIdr % (1 << LOG2_MAX_FRAME_NUM)); // frame_num
    if (idr) bw.ue(this.idrCount++ % 65536); // idr_pic_id: consecutive IDRs must differ
    // dec_ref_pic_marking(): IDR -> no_output_of_prior_pics=0, long_term_reference=0;
    // non-IDR -> adaptive_ref_pic_marking_mode_flag=0 (sliding window).
    if (idr) bw.bit(0).bit(0);
    else bw.bit(0);
    bw.se(0); // slice_qp_delta
    // slice_data(): every macroblock is I_PCM; CAVLC I slices have no skip runs or end flags.
    const luma = new Uint8Array(256);
    const cb = new Uint8Array(64);
    const cr = new Uint8Array(64);
    for (let my = 0; my < this.mbHeight; my++) {
      for (let mx = 0; mx < this.mbWidth; mx++) {
        for (let row = 0; row < 16; row++) {
          const src = (my * 16 + row) * w + mx * 16;
          luma.set(frame.y.subarray(src, src + 16), row * 16);
        }
        for (let row = 0; row < 8; row++) {
          const src = (my * 8 + row) * (w / 2) + mx * 8;
          cb.set(frame.u.subarray(src, src + 8), row * 8);
          cr.set(frame.v.subarray(src, src + 8), row * 8);
        }
        bw.ue(MB_TYPE_I_PCM).alignZero().bytesAligned(luma).bytesAligned(cb).bytesAligned(cr);
      }
    }
    bw.trailingBits();
    const nal = buildNalUnit(idr ? 3 : 2, idr ? NAL_IDR : NAL_SLICE, bw.finish());
    const data = new Uint8Array(4 + nal.length);
    new DataView(data.buffer).setUint32(0, nal.length);
    data.set(nal, 4);
    return { data, key: idr };
  }

  private buildSps(): Uint8Array {
    const bw = new BitWriter(64);
    bw.u(8, PROFILE_BASELINE);
    bw.u(8, 0b11000000); // constraint_set0/1 (Constrained Baseline), reserved_zero bits
    bw.u(8, this.levelIdc);
    bw.ue(0); // seq_parameter_set_id
    bw.ue(LOG2_MAX_FRAME_NUM - 4); // log2_max_frame_num_minus4
    bw.ue(2); // pic_order_cnt_type: POC follows frame_num, no B-frames
    bw.ue(1); // max_num_ref_frames
    bw.bit(0); // gaps_in_frame_num_value_allowed_flag
    bw.ue(this.mbWidth - 1);
    bw.ue(this.mbHeight - 1); // pic_height_in_map_units_minus1
    bw.bit(1); // frame_mbs_only_flag
    bw.bit(1); // direct_8x8_inference_flag
    const cropRight = (this.codedWidth - this.config.width) / 2; // CropUnitX = 2 for 4:2:0
    const cropBottom = (this.codedHeight - this.config.height) / 2; // CropUnitY = 2 (frame_mbs_only)
    if (cropRight || cropBottom) {
      bw.bit(1).ue(0).ue(cropRight).ue(0).ue(cropBottom);
    } else {
      bw.bit(0);
    }
    bw.bit(0); // vui_parameters_present_flag (timing comes from the MP4 container)
    bw.trailingBits();
    return buildNalUnit(3, NAL_SPS, bw.finish());
  }

  private buildPps(): Uint8Array {
    const bw = new BitWriter(16);
    bw.ue(0); // pic_parameter_set_id
    bw.ue(0); // seq_parameter_set_id
    bw.bit(0); // entropy_coding_mode_flag: CAVLC
    bw.bit(0); // bottom_field_pic_order_in_frame_present_flag
    bw.ue(0); // num_slice_groups_minus1
    bw.ue(0); // num_ref_idx_l0_default_active_minus1
    bw.ue(0); // num_ref_idx_l1_default_active_minus1
    bw.bit(0); // weighted_pred_flag
    bw.u(2, 0); // weighted_bipred_idc
    bw.se(0); // pic_init_qp_minus26
    bw.se(0); // pic_init_qs_minus26
    bw.se(0); // chroma_qp_index_offset
    bw.bit(0); // deblocking_filter_control_present_flag (I_PCM has qP 0: filter is a no-op)
    bw.bit(0); // constrained_intra_pred_flag
    bw.bit(0); // redundant_pic_cnt_present_flag
    bw.trailingBits();
    return buildNalUnit(3, NAL_PPS, bw.finish());
  }
}

/** Lowest level whose frame size, macroblock rate and bitrate limits fit uncompressed I_PCM. */
function pickLevel(mbsPerFrame: number, fps: number): number {
  const mbps = mbsPerFrame * fps;
  const kbps = (mbsPerFrame * fps * (384 * 8 + 16)) / 1000;
  const fit = LEVELS.find(([, maxMbps, maxFs, maxBr]) => mbsPerFrame <= maxFs && mbps <= maxMbps && kbps <= maxBr);
  return fit ? fit[0] : 51;
}

function hex(byte: number): string {
  return byte.toString(16).toUpperCase().padStart(2, '0');
}
