/**
 * Canonical 44-byte-header RIFF/WAVE file for 16-bit little-endian PCM. Written by hand because
 * the format is tiny and fixed; `wavefile` is only a dev dependency used by tests to decode it.
 */
export function encodeWavPcm16(samples: Int16Array, sampleRate: number, channels = 1): Buffer {
  const bytesPerSample = 2;
  const dataBytes = samples.length * bytesPerSample;
  const out = Buffer.alloc(44 + dataBytes);
  out.write('RIFF', 0, 'latin1');
  out.writeUInt32LE(36 + dataBytes, 4); // RIFF chunk size: everything after this field
  out.write('WAVE', 8, 'latin1');
  out.write('fmt ', 12, 'latin1');
  out.writeUInt32LE(16, 16); // fmt chunk size for PCM
  out.writeUInt16LE(1, 20); // WAVE_FORMAT_PCM
  out.writeUInt16LE(channels, 22);
  out.writeUInt32LE(sampleRate, 24);
  out.writeUInt32LE(sampleRate * channels * bytesPerSample, 28); // byte rate
  out.writeUInt16LE(channels * bytesPerSample, 32); // block align
  out.writeUInt16LE(16, 34); // bits per sample
  out.write('data', 36, 'latin1');
  out.writeUInt32LE(dataBytes, 40);
  for (let i = 0; i < samples.length; i++) out.writeInt16LE(samples[i] as number, 44 + i * 2);
  return out;
}
