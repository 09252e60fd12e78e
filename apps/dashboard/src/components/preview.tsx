import { lazy, Suspense } from 'react';
import type { Generation, GenerationType } from '../api/api';
import { Loading, Notice } from './ui';

const ModelPreview = lazy(() => import('./model-preview'));

/** Every output of a finished generation: `outputs`, or the one `output_url` of a record made before them. */
export function outputUrls(generation: Generation): string[] {
  const urls = (generation.outputs ?? []).map((o) => o.url);
  if (urls.length > 0) return urls;
  return generation.output_url ? [generation.output_url] : [];
}

/** One output: an image, a video or audio player, or the 3D viewer (only for the first: each viewer is a WebGL context). */
function OutputView({ type, url, alt, index, count }: { type: GenerationType; url: string; alt: string; index: number; count: number }) {
  const of = count > 1 ? ` ${index + 1} of ${count}` : '';
  const label = `${alt}${count > 1 ? `, ${index + 1} of ${count}` : ''}`;
  switch (type) {
    case 'TEXT_TO_IMAGE':
      return (
        <figure className="preview">
          <img src={url} alt={label} />
          <figcaption>
            <a href={url} target="_blank" rel="noreferrer">
              Open the image{of} in a new tab
            </a>
          </figcaption>
        </figure>
      );
    case 'TEXT_TO_VIDEO':
      return (
        <figure className="preview">
          <video src={url} controls loop muted playsInline aria-label={label} />
          <figcaption>
            <a href={url} download>
              Download the video{of}
            </a>
          </figcaption>
        </figure>
      );
    case 'TEXT_TO_AUDIO':
      return (
        <figure className="preview preview-audio">
          <audio src={url} controls aria-label={label} />
          <figcaption>
            <a href={url} download>
              Download the audio{of}
            </a>
          </figcaption>
        </figure>
      );
    case 'TEXT_TO_3D':
      return (
        <figure className="preview">
          {index === 0 && (
            <Suspense fallback={<Loading label="Loading the 3D viewer…" />}>
              <ModelPreview key={url} url={url} label={label} />
            </Suspense>
          )}
          <figcaption>
            <a href={url} download>
              Download the 3D model{of} (.glb)
            </a>{' '}
            <span className="muted">binary glTF, for any 3D tool</span>
          </figcaption>
        </figure>
      );
  }
}

/** The outputs of a generation (every one, in order); or why there is none yet. */
export function Preview({ generation }: { generation: Generation }) {
  if (generation.status === 'failed') {
    return (
      <Notice tone="warning" title="This generation failed">
        <p>{generation.error ?? 'No reason was given.'} No credits were charged.</p>
      </Notice>
    );
  }
  const urls = outputUrls(generation);
  if (generation.status !== 'completed' || urls.length === 0) {
    return (
      <Notice title={generation.status === 'queued' ? 'Waiting for a free slot' : 'Being generated'}>
        <p role="status">This page updates by itself when the output is ready.</p>
      </Notice>
    );
  }
  const alt = `Output of “${generation.prompt}”`;
  const views = urls.map((url, index) => <OutputView key={url} type={generation.type} url={url} alt={alt} index={index} count={urls.length} />);
  if (views.length === 1) return views[0];
  return (
    <div className="output-gallery" data-outputs={urls.length}>
      {views}
    </div>
  );
}
