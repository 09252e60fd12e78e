import { FormEvent, useCallback, useId, useMemo, useState } from 'react';
import { ApiError, dashboardApi, Generation, ModelsPage } from '../api/api';
import { CurlCard } from '../components/curl-card';
import { InputForm, InputValues } from '../components/input-form';
import { ModelField } from '../components/playground-model-field';
import { curlFor, inputErrors, newAttemptId, priceWith, requestBody } from '../components/playground-request';
import { PlaygroundResult, Run } from '../components/playground-result';
import { useMediaUpload } from '../components/use-media-upload';
import { EmptyState, FormError, Loading, LoadError, Notice, PageHeading } from '../components/ui';
import { credits, planLabel } from '../lib/format';
import { Link, useLocation } from '../lib/router';
import { useAsync } from '../lib/use-async';

const MAX_PROMPT = 4000;

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
            <ModelField
              id={ids.model}
              catalogue={catalogue}
              model={model}
              error={errors.model}
              onChange={(id) => {
                setModelId(id);
                setInputValues({});
                setErrors({});
              }}
            />
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
              <PlaygroundResult run={run} onUpdate={update} />
            ) : (
              <Notice title="Nothing generated yet">
                <p>Pick a model, write a prompt and press Generate; the result appears here.</p>
              </Notice>
            )}
            <CurlCard curl={curl} />
          </div>
        </div>
      )}
    </main>
  );
}
