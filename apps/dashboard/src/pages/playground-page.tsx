import { FormEvent, useCallback, useEffect, useId, useMemo, useState } from 'react';
import { ApiError, ApiKey, dashboardApi, GenerateBody, Generation, GENERATION_TYPES, Model, ModelInfo, ModelsPage } from '../api';
import { InputForm, InputValues } from '../components/input-form';
import { useMediaUpload } from '../components/use-media-upload';
import { DEMO_HINT, isDemo, ProviderBadge } from '../components/model-label';
import { Preview } from '../components/preview';
import { CopyButton, EmptyState, FormError, Loading, LoadError, Notice, PageHeading, StatusBadge } from '../components/ui';
import { between, credits, formatDuration, planLabel, TYPE_LABELS } from '../format';
import { Link, useLocation } from '../router';
import { useAsync } from '../use-async';

const POLL_MS = 1000;
const MAX_PROMPT = 4000;

/** What the form shows of a model: price, minimum, mode; demos say so. */
function modelSummary(m: ModelInfo): string {
  return `${isDemo(m) ? 'demo · ' : ''}${credits(m.credits)} · ${m.synchronous ? 'sync' : 'async'}`;
}

/** Single quotes for a shell: the prompt as typed, safely. */
function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * The request the playground made, as a curl command for the API itself. The key is never in the
 * page: its public prefix stands there with a placeholder for the rest, which only its owner has.
 */
export function curlFor(origin: string, key: Pick<ApiKey, 'prefix'>, request: GenerateBody): string {
  const body = JSON.stringify({ model: request.model, prompt: request.prompt, type: request.type, ...(request.input ? { input: request.input } : {}) });
  return [
    `curl -s ${origin}/api/v1/generate \\`,
    `  -H "Authorization: Bearer ${key.prefix}<REST_OF_YOUR_KEY>" \\`,
    `  -H "Content-Type: application/json" \\`,
    `  -d ${shellQuote(body)}`,
  ].join('\n');
}

/**
 * The errors of an answer that name input fields (`input.seed: must be an integer from 0 to
 * 2147483647; input.aspect_ratio: ...`), by field; null when it names none.
 */
export function inputErrors(message: string): Record<string, string> | null {
  const found: Record<string, string> = {};
  for (const part of message.split('; ')) {
    const match = /^input\.([A-Za-z0-9_-]+): (.+)$/s.exec(part);
    if (match) found[match[1]] = match[2];
  }
  return Object.keys(found).length > 0 ? found : null;
}

/**
 * What a submit will cost with these inputs: the price times each multiplier input's value (the
 * customer's, else its default), rounded up, as the service computes it (it has the last word).
 */
export function priceWith(model: Model, values: InputValues): number {
  let price = model.credits;
  for (const name of model.price_multipliers ?? []) {
    const value = name in values ? values[name] : model.inputs?.properties?.[name]?.default;
    if (typeof value === 'number' && Number.isFinite(value)) price *= value;
  }
  return Math.ceil(price - 1e-9);
}

/** The body of one submit: the input only when the customer set a field. */
function requestBody(model: ModelInfo, prompt: string, values: InputValues): GenerateBody {
  const body: GenerateBody = { model: model.id, prompt, type: model.type };
  if (Object.keys(values).length > 0) body.input = values;
  return body;
}

/** A v4 UUID (the Idempotency-Key of one click); getRandomValues works outside secure contexts too, randomUUID does not. */
function newAttemptId(): string {
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const hex = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

interface Run {
  keyId: string;
  generation: Generation;
}

/** The result of the last submit: watched (polled) until it is final, with what it cost. */
function Result({ run, onUpdate }: { run: Run; onUpdate: (g: Generation) => void }) {
  const g = run.generation;
  const final = g.status === 'completed' || g.status === 'failed';
  useEffect(() => {
    if (final) return;
    const timer = window.setTimeout(() => {
      dashboardApi.generation(g.id).then(
        (detail) => onUpdate(detail.generation),
        () => onUpdate({ ...g }), // try again on the next tick
      );
    }, POLL_MS);
    return () => window.clearTimeout(timer);
  }, [g, final, onUpdate]);
  return (
    <section className="card result" aria-labelledby="result-heading" aria-busy={!final}>
      <div className="section-head">
        <h2 id="result-heading">Result</h2>
        <StatusBadge status={g.status} />
      </div>
      <Preview generation={g} />
      <dl className="result-facts small">
        <div>
          <dt>Credits charged</dt>
          <dd data-testid="credits-charged">{final ? credits(g.credits_charged) : 'when it completes'}</dd>
        </div>
        <div>
          <dt>Took</dt>
          <dd>{final ? formatDuration(between(g.created_at, g.completed_at)) : 'under way…'}</dd>
        </div>
        <div>
          <dt>Generation</dt>
          <dd>
            <Link to={`/generations/${g.id}`} className="mono">
              {g.id.slice(0, 8)}
            </Link>
          </dd>
        </div>
      </dl>
      <p className="visually-hidden" role="status">
        {final ? `Generation ${g.status}.` : ''}
      </p>
    </section>
  );
}

export function PlaygroundPage() {
  const { query } = useLocation();
  const [models, reloadModels] = useAsync(() => dashboardApi.models(), []);
  const [keys, reloadKeys] = useAsync(() => dashboardApi.keys(), []);
  const usable = useMemo(
    () => (keys.status === 'ready' ? keys.data.data.filter((k) => k.status === 'active' && k.scopes.includes('generate')) : []),
    [keys],
  );
  const [keyId, setKeyId] = useState('');
  const [modelId, setModelId] = useState(query.get('model') ?? '');
  const [prompt, setPrompt] = useState('');
  const [errors, setErrors] = useState<{ model?: string; prompt?: string; form?: string; input?: Record<string, string> }>({});
  const [inputValues, setInputValues] = useState<InputValues>({});
  const [busy, setBusy] = useState(false);
  const [run, setRun] = useState<Run | null>(null);
  const ids = { key: useId(), model: useId(), prompt: useId() };

  const catalogue: ModelsPage | null = models.status === 'ready' ? models.data : null;
  const selectedKey = usable.find((k) => k.id === keyId) ?? usable[0];
  const firstAvailable = catalogue?.data.find((m) => m.available);
  const model = catalogue?.data.find((m) => m.id === modelId) ?? firstAvailable;
  const uploadRefused = useCallback((field: string, message: string) => setErrors((e) => ({ ...e, input: { ...(e.input ?? {}), [field]: message } })), []);
  const media = useMediaUpload(selectedKey?.id, uploadRefused);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!selectedKey || !model) return;
    const local: typeof errors = {};
    if (prompt.trim() === '') local.prompt = 'Describe what to generate.';
    if (!model.available) local.model = `This model is not available: ${model.unavailable_reason ?? 'unknown reason'}`;
    setErrors(local);
    if (local.prompt || local.model) return;
    const body = requestBody(model, prompt.trim(), inputValues);
    setBusy(true);
    try {
      const generation = await dashboardApi.generate(selectedKey.id, body, newAttemptId());
      setRun({ keyId: selectedKey.id, generation });
      reloadModels(); // the credits shown
    } catch (error) {
      const fields = error instanceof ApiError ? inputErrors(error.message) : null;
      if (!(error instanceof ApiError)) setErrors({ form: 'The generation could not be submitted.' });
      else if (fields) setErrors({ input: fields, form: 'Some inputs were refused: see the fields below.' });
      else if (error.field === 'prompt' || /^prompt /.test(error.message)) setErrors({ prompt: error.detail });
      else if (error.field === 'model' || error.code === 'forbidden' || error.code === 'insufficient_credits') setErrors({ model: error.detail });
      else setErrors({ form: error.detail });
    } finally {
      setBusy(false);
    }
  };

  const update = useCallback(
    (generation: Generation) => setRun((current) => (current && current.generation.id === generation.id ? { ...current, generation } : current)),
    [],
  );
  const curl =
    selectedKey && model ? curlFor(window.location.origin, selectedKey, requestBody(model, prompt.trim() || 'a lighthouse at dusk', inputValues)) : '';
  const loading = models.status === 'loading' || keys.status === 'loading';
  const failed = models.status === 'error' ? models.error : keys.status === 'error' ? keys.error : null;

  return (
    <main id="main">
      <PageHeading title="Playground">Playground</PageHeading>
      <p className="lead">Try a model with one of your keys: it is a real request, charged and rate-limited like any other.</p>
      {loading && <Loading />}
      {failed && (
        <LoadError
          message={failed.detail}
          onRetry={() => {
            reloadModels();
            reloadKeys();
          }}
        />
      )}
      {catalogue && keys.status === 'ready' && usable.length === 0 && (
        <EmptyState title="You need an API key with the Generate permission">
          <p>
            The playground sends requests with one of your keys. <Link to="/settings/keys">Create a key</Link>, then come back.
          </p>
        </EmptyState>
      )}
      {catalogue && selectedKey && !model && (
        <EmptyState title="No model is available to this account right now">
          <p>
            See <Link to="/models">Models</Link> for why.
          </p>
        </EmptyState>
      )}
      {catalogue && selectedKey && model && (
        <div className="playground">
          <form className="card" onSubmit={(e) => void submit(e)} noValidate aria-labelledby="request-heading">
            <h2 id="request-heading">Request</h2>
            <div className="field">
              <label htmlFor={ids.key}>API key</label>
              <select id={ids.key} value={selectedKey.id} onChange={(e) => setKeyId(e.target.value)}>
                {usable.map((k) => (
                  <option key={k.id} value={k.id}>
                    {k.name} ({k.prefix}…)
                  </option>
                ))}
              </select>
            </div>
            <div className={`field${errors.model ? ' field-invalid' : ''}`}>
              <label htmlFor={ids.model}>Model</label>
              <select
                id={ids.model}
                value={model.id}
                onChange={(e) => {
                  setModelId(e.target.value);
                  setInputValues({});
                  setErrors({});
                }}
                aria-describedby={`${ids.model}-facts${errors.model ? ` ${ids.model}-error` : ''}`}
                aria-invalid={errors.model ? true : undefined}
              >
                {GENERATION_TYPES.map((type) => {
                  const ofType = catalogue.data.filter((m) => m.type === type);
                  if (ofType.length === 0) return null;
                  return (
                    <optgroup key={type} label={TYPE_LABELS[type]}>
                      {ofType.map((m) => (
                        <option key={m.id} value={m.id} disabled={!m.available}>
                          {m.name} — {m.available ? modelSummary(m) : 'unavailable'}
                        </option>
                      ))}
                    </optgroup>
                  );
                })}
              </select>
              <p className="hint model-facts" id={`${ids.model}-facts`}>
                <ProviderBadge model={model} /> <span className="mono">{model.id}</span> · {TYPE_LABELS[model.type]} · {credits(model.credits)}
                {model.price_multipliers && model.price_multipliers.length > 0 ? ` × ${model.price_multipliers.join(' × ')}` : ''} (needs {credits(model.minimum_credits)}{' '}
                available) · {model.synchronous ? 'synchronous: the answer waits for the result' : 'asynchronous: answered at once, then polled'} ·{' '}
                {planLabel(model.min_plan)} plan or above
                {model.description && (
                  <>
                    <br />
                    {model.description}
                  </>
                )}
              </p>
              {isDemo(model) && (
                <p className="hint demo-warning" data-testid="demo-warning">
                  <strong>Demo model:</strong> {DEMO_HINT}
                </p>
              )}
              {errors.model && (
                <p className="field-error" id={`${ids.model}-error`} role="alert">
                  {errors.model}
                </p>
              )}
            </div>
            <div className={`field${errors.prompt ? ' field-invalid' : ''}`}>
              <label htmlFor={ids.prompt}>Prompt</label>
              <textarea
                id={ids.prompt}
                rows={4}
                maxLength={MAX_PROMPT}
                value={prompt}
                placeholder="a lighthouse at dusk"
                onChange={(e) => setPrompt(e.target.value)}
                aria-invalid={errors.prompt ? true : undefined}
                aria-describedby={errors.prompt ? `${ids.prompt}-error` : undefined}
              />
              {errors.prompt && (
                <p className="field-error" id={`${ids.prompt}-error`} role="alert">
                  {errors.prompt}
                </p>
              )}
            </div>
            {model.inputs && (
              <InputForm
                key={model.id}
                schema={model.inputs}
                values={inputValues}
                errors={errors.input ?? {}}
                onChange={(values) => {
                  setInputValues(values);
                  if (errors.input) setErrors({ ...errors, input: undefined, form: undefined });
                }}
                uploading={media.uploading}
                onUpload={media.upload}
              />
            )}
            <FormError message={errors.form ?? null} />
            <div className="actions">
              <button type="submit" className="button button-primary" disabled={busy}>
                {busy ? 'Generating…' : `Generate · ${credits(priceWith(model, inputValues))}`}
              </button>
              <span className="hint">
                {credits(catalogue.credits.available)} available on the {planLabel(catalogue.plan)} plan
              </span>
            </div>
          </form>
          <div className="playground-side">
            {run ? (
              <Result run={run} onUpdate={update} />
            ) : (
              <Notice title="Nothing generated yet">
                <p>Pick a model, write a prompt and press Generate; the result appears here.</p>
              </Notice>
            )}
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
          </div>
        </div>
      )}
    </main>
  );
}
