import { lazy, Suspense } from 'react';
import type { Generation } from '../api';
import { Loading, Notice } from './ui';

const ModelPreview = lazy(() => import('./model-preview'));

/** The output of a generation: image, video or audio player, or an interactive 3D view; or why there is none. */
export function Preview({ generation }: { generation: Generation }) {
  if (generation.status === 'failed') {
    return (
      <Notice tone="warning" title="This generation failed">
        <p>{generation.error ?? 'No reason was given.'} No credits were charged.</p>
      </Notice>
    );
  }
  if (generation.status !== 'completed' || !generation.output_url) {
    return (
      <Notice title={generation.status === 'queued' ? 'Waiting for a free slot' : 'Being generated'}>
        <p role="status">This page updates by itself when the output is ready.</p>
      </Notice>
    );
  }
  const url = generation.output_url;
  const alt = `Output of “${generation.prompt}”`;
  switch (generation.type) {
    case 'TEXT_TO_IMAGE':
      return (
        <figure className="preview">
          <img src={url} alt={alt} />
          <figcaption>
            <a href={url} target="_blank" rel="noreferrer">
              Open the image in a new tab
            </a>
          </figcaption>
        </figure>
      );
    case 'TEXT_TO_VIDEO':
      return (
        <figure className="preview">
          <video src={url} controls loop muted playsInline aria-label={alt} />
          <figcaption>
            <a href={url} download>
              Download the video (MP4)
            </a>
          </figcaption>
        </figure>
      );
    case 'TEXT_TO_AUDIO':
      return (
        <figure className="preview preview-audio">
          <audio src={url} controls aria-label={alt} />
          <figcaption>
            <a href={url} download>
              Download the audio (WAV)
            </a>
          </figcaption>
        </figure>
      );
    case 'TEXT_TO_3D':
      return (
        <figure className="preview">
          <Suspense fallback={<Loading label="Loading the 3D viewer…" />}>
            <ModelPreview key={url} url={url} label={alt} />
          </Suspense>
          <figcaption>
            <a href={url} download>
              Download the 3D model (.glb)
            </a>{' '}
            <span className="muted">binary glTF, for any 3D tool</span>
          </figcaption>
        </figure>
      );
  }
}
