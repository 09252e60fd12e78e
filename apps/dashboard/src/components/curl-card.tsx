import { CopyButton } from './ui';

/** The playground's request as a curl command, with a copy button. */
export function CurlCard({ curl }: { curl: string }) {
  return (
    <section className="card" aria-labelledby="curl-heading">
      <div className="section-head">
        <h2 id="curl-heading">The same request with curl</h2>
        <CopyButton value={curl} label="Copy curl" />
      </div>
      <pre className="code" tabIndex={0} data-testid="curl">
        {curl}
      </pre>
      <p className="hint">
        Replace <code>&lt;REST_OF_YOUR_KEY&gt;</code> with the rest of the key, which was shown once when you created it.
      </p>
    </section>
  );
}
