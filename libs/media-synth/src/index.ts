// Demo media synthesis for the built-in engines (apps/generation/src/engines): pictures, a melody,
// a star prism drawn from a prompt, and the encoders and containers that write them (H.264 in MP4,
// WAV, GLB). Pure functions of the prompt and seed; no I/O.
export * from './prompt-seed';
export * from './scene';
export * from './melody';
export * from './prism-geometry';
export * from './yuv420';
export * from './bit-writer';
export * from './h264-pcm-encoder';
export * from './avc-mp4-writer';
export * from './wav-writer';
export * from './glb-writer';
