import type { MeshGeometry } from './prism-geometry';

/**
 * Packs one indexed, flat-shaded mesh with a PBR material into binary glTF 2.0 (GLB):
 * 12-byte header, a JSON chunk padded with spaces and a BIN chunk padded with zeros, both to
 * 4-byte multiples. Buffer views are 4-byte aligned; POSITION carries the exact float32 min/max
 * the spec requires (computed from the stored float32 values so validators agree to the bit).
 */

export interface PbrMaterial {
  name: string;
  /** Linear RGBA, 0..1. */
  baseColorFactor: [number, number, number, number];
  metallicFactor: number;
  roughnessFactor: number;
}

const GLB_MAGIC = 0x46546c67; // 'glTF'
const CHUNK_JSON = 0x4e4f534a; // 'JSON'
const CHUNK_BIN = 0x004e4942; // 'BIN\0'
const FLOAT = 5126;
const UNSIGNED_SHORT = 5123;
const ARRAY_BUFFER = 34962;
const ELEMENT_ARRAY_BUFFER = 34963;
const TRIANGLES = 4;

export function encodeMeshGlb(mesh: MeshGeometry, material: PbrMaterial, meshName: string): Buffer {
  const vertexCount = mesh.positions.length / 3;
  const posBytes = Buffer.from(mesh.positions.buffer, mesh.positions.byteOffset, mesh.positions.byteLength);
  const nrmBytes = Buffer.from(mesh.normals.buffer, mesh.normals.byteOffset, mesh.normals.byteLength);
  const idxBytes = Buffer.from(mesh.indices.buffer, mesh.indices.byteOffset, mesh.indices.byteLength);
  // Float data first (multiples of 4 bytes), indices last, so every view starts 4-byte aligned.
  const bin = Buffer.concat([posBytes, nrmBytes, idxBytes]);
  const { min, max } = vec3Bounds(mesh.positions);

  const gltf = {
    asset: { version: '2.0', generator: 'generation-service built-in mesh engine' },
    scene: 0,
    scenes: [{ nodes: [0] }],
    nodes: [{ mesh: 0, name: meshName }],
    meshes: [
      {
        name: meshName,
        primitives: [{ attributes: { POSITION: 0, NORMAL: 1 }, indices: 2, material: 0, mode: TRIANGLES }],
      },
    ],
    materials: [
      {
        name: material.name,
        pbrMetallicRoughness: {
          baseColorFactor: material.baseColorFactor,
          metallicFactor: material.metallicFactor,
          roughnessFactor: material.roughnessFactor,
        },
      },
    ],
    buffers: [{ byteLength: bin.length }],
    bufferViews: [
      { buffer: 0, byteOffset: 0, byteLength: posBytes.length, target: ARRAY_BUFFER },
      { buffer: 0, byteOffset: posBytes.length, byteLength: nrmBytes.length, target: ARRAY_BUFFER },
      {
        buffer: 0,
        byteOffset: posBytes.length + nrmBytes.length,
        byteLength: idxBytes.length,
        target: ELEMENT_ARRAY_BUFFER,
      },
    ],
    accessors: [
      { bufferView: 0, componentType: FLOAT, count: vertexCount, type: 'VEC3', min, max },
      { bufferView: 1, componentType: FLOAT, count: vertexCount, type: 'VEC3' },
      { bufferView: 2, componentType: UNSIGNED_SHORT, count: mesh.indices.length, type: 'SCALAR' },
    ],
  };
  return packGlb(Buffer.from(JSON.stringify(gltf), 'utf8'), bin);
}

export function packGlb(json: Buffer, bin: Buffer): Buffer {
  const jsonChunk = pad(json, 0x20);
  const binChunk = pad(bin, 0x00);
  const total = 12 + 8 + jsonChunk.length + 8 + binChunk.length;
  const header = Buffer.alloc(12);
  header.writeUInt32LE(GLB_MAGIC, 0);
  header.writeUInt32LE(2, 4);
  header.writeUInt32LE(total, 8);
  return Buffer.concat([
    header,
    chunkHeader(jsonChunk.length, CHUNK_JSON),
    jsonChunk,
    chunkHeader(binChunk.length, CHUNK_BIN),
    binChunk,
  ]);
}

function chunkHeader(length: number, type: number): Buffer {
  const out = Buffer.alloc(8);
  out.writeUInt32LE(length, 0);
  out.writeUInt32LE(type, 4);
  return out;
}

function pad(data: Buffer, fill: number): Buffer {
  const extra = (4 - (data.length % 4)) % 4;
  return extra === 0 ? data : Buffer.concat([data, Buffer.alloc(extra, fill)]);
}

function vec3Bounds(values: Float32Array): { min: number[]; max: number[] } {
  const min = [Infinity, Infinity, Infinity];
  const max = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < values.length; i++) {
    const c = i % 3;
    const v = values[i] as number; // already float32-rounded
    if (v < (min[c] as number)) min[c] = v;
    if (v > (max[c] as number)) max[c] = v;
  }
  return { min, max };
}
