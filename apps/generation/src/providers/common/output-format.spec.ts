import { createBuiltInEngines } from '../../engines';
import type { GenerationType } from '@gen/contracts';
import { outputFormatFor, sniffFormat } from './output-format';

describe('output formats of remote engines', () => {
  const engines = createBuiltInEngines();
  const make = (engine: string, type: GenerationType) =>
    engines[engine].generate({ jobId: 'j', modelId: 'm', type, prompt: 'p', input: {}, seed: 1, params: { width: 64, height: 64, durationSeconds: 0.5 }, signal: new AbortController().signal, upstreamRef: null, saveUpstreamRef: () => Promise.resolve() });

  it.each<[string, GenerationType, string, string]>([
    ['image', 'TEXT_TO_IMAGE', 'image/png', 'png'],
    ['video', 'TEXT_TO_VIDEO', 'video/mp4', 'mp4'],
    ['audio', 'TEXT_TO_AUDIO', 'audio/wav', 'wav'],
    ['mesh', 'TEXT_TO_3D', 'model/gltf-binary', 'glb'],
  ])('recognises a real %s asset by its bytes and accepts it only for its own type', async (engine, type, contentType, extension) => {
    const [{ data = Buffer.alloc(0) }] = await make(engine, type);
    expect(outputFormatFor(type, data)).toEqual({ contentType, extension });
    for (const other of ['TEXT_TO_IMAGE', 'TEXT_TO_VIDEO', 'TEXT_TO_AUDIO', 'TEXT_TO_3D'] as const) {
      if (other !== type) expect(outputFormatFor(other, data)).toBeNull();
    }
  });

  it('recognises the other accepted formats by their signatures', () => {
    expect(sniffFormat(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0]))?.extension).toBe('jpg');
    expect(sniffFormat(Buffer.from('RIFF\0\0\0\0WEBPVP8 ', 'latin1'))?.extension).toBe('webp');
    expect(sniffFormat(Buffer.from([0x1a, 0x45, 0xdf, 0xa3, 0x9f]))?.extension).toBe('webm');
    expect(sniffFormat(Buffer.from('ID3\x04\0\0', 'latin1'))?.extension).toBe('mp3');
  });

  it('refuses what is not an asset: HTML, JSON, empty, truncated signatures', () => {
    for (const text of ['<html>error</html>', '{"error":"x"}', '', '\x89PN', 'glTF\x01\0\0\0']) {
      expect(sniffFormat(Buffer.from(text, 'latin1'))).toBeNull();
    }
  });
});
