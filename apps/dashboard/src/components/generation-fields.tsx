import { Generation } from '../api/api';
import { between, formatDate, formatDuration } from '../lib/format';
import { CopyButton, StatusBadge } from './ui';

/** An input value as typed JSON would show it (strings as they are). */
function inputText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** Keys and values (the input as applied, or the customer's metadata), or a dash when there are none. */
function KeyValues({ values, label, testId }: { values: Record<string, unknown> | null | undefined; label: string; testId: string }) {
  const entries = Object.entries(values ?? {});
  if (entries.length === 0) return <span className="muted">none</span>;
  return (
    <table className="kv" aria-label={label} data-testid={testId}>
      <tbody>
        {entries.map(([key, value]) => (
          <tr key={key}>
            <th scope="row" className="mono small">
              {key}
            </th>
            <td className="mono small break">{inputText(value)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** "1.2 MB", "340 KB". */
function formatBytes(bytes: number | null): string {
  if (bytes === null) return 'size not recorded';
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(0)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** Everything recorded of a generation: prompt, input as applied, metadata, status, times, outputs and error. */
export function GenerationFields({ generation: g }: { generation: Generation }) {
  return (
    <dl className="fields">
      <dt>Prompt</dt>
      <dd className="prompt-full">{g.prompt}</dd>
      <dt>Input</dt>
      <dd>
        <KeyValues values={g.input} label="Input as applied" testId="generation-input" />
        {g.input && Object.keys(g.input).length > 0 && <span className="muted small">as applied: the request's values with the model's defaults</span>}
      </dd>
      <dt>Metadata</dt>
      <dd>
        <KeyValues values={g.metadata} label="Metadata" testId="generation-metadata" />
      </dd>
      <dt>ID</dt>
      <dd>
        <span className="mono small break">{g.id}</span> <CopyButton value={g.id} label="Copy ID" />
      </dd>
      <dt>Status</dt>
      <dd>
        <StatusBadge status={g.status} />
        {g.status === 'queued' && g.queue_position !== null && (
          <span className="muted small"> · {g.queue_position === 0 ? 'next to start' : `${g.queue_position} ahead of it`}</span>
        )}
        {g.status === 'processing' && g.progress !== null && <span className="muted small"> · {Math.round(g.progress * 100)} %</span>}
        {g.canceled_at && <span className="muted small"> · canceled {formatDate(g.canceled_at)}</span>}
      </dd>
      <dt>Type</dt>
      <dd className="mono small">{g.type}</dd>
      <dt>Model</dt>
      <dd className="mono small">{g.model}</dd>
      <dt>Credits charged</dt>
      <dd>{g.credits_charged}</dd>
      <dt>Created</dt>
      <dd>{formatDate(g.created_at)}</dd>
      <dt>Started</dt>
      <dd>
        {formatDate(g.started_at)}
        {g.started_at && <span className="muted small"> · waited {formatDuration(between(g.created_at, g.started_at))}</span>}
      </dd>
      <dt>{g.status === 'failed' ? 'Finished' : 'Completed'}</dt>
      <dd>
        {formatDate(g.completed_at)}
        {g.completed_at && (
          <span className="muted small">
            {' '}
            · ran {formatDuration(between(g.started_at ?? g.created_at, g.completed_at))}, {formatDuration(between(g.created_at, g.completed_at))}{' '}
            in all
          </span>
        )}
      </dd>
      <dt>Output URL</dt>
      <dd>{g.output_url ? <span className="mono small break">{g.output_url}</span> : '—'}</dd>
      {g.outputs && g.outputs.length > 0 && (
        <>
          <dt>Outputs</dt>
          <dd>
            <ol className="outputs-list" data-testid="generation-outputs">
              {g.outputs.map((o) => (
                <li key={o.url}>
                  <a href={o.url} className="mono small break" target="_blank" rel="noreferrer">
                    {o.url}
                  </a>
                  <span className="muted small">
                    {' '}
                    · {o.content_type}
                    {o.bytes === null ? '' : ` · ${formatBytes(o.bytes)}`}
                    {o.width && o.height ? ` · ${o.width}x${o.height}` : ''}
                    {o.duration_s ? ` · ${o.duration_s} s` : ''}
                  </span>
                </li>
              ))}
            </ol>
          </dd>
        </>
      )}
      {g.output_expires_at && (
        <>
          <dt>Output kept until</dt>
          <dd>
            {formatDate(g.output_expires_at)} <span className="muted small">(then deleted; its URL answers 410)</span>
          </dd>
        </>
      )}
      {g.error && (
        <>
          <dt>Error</dt>
          <dd>{g.error}</dd>
        </>
      )}
    </dl>
  );
}
