import type { ModelInfo } from '../api/api';

/** How a provider is named in the dashboard; another label is shown as the operator wrote it. */
const PROVIDER_NAMES: Record<string, string> = {
  replicate: 'Replicate',
  fal: 'fal',
  openai: 'OpenAI',
  cog: 'Self-hosted (Cog)',
  remote: 'Remote',
};

export const DEMO_HINT = 'A built-in demo engine: it draws shapes, tones or a robotic voice from the prompt. It is not an AI model.';

export function isDemo(model: Pick<ModelInfo, 'provider'>): boolean {
  return model.provider === 'demo';
}

/** Who serves a model; a built-in demo engine gets a "Demo" badge, so no one takes it for an AI model. */
export function ProviderBadge({ model }: { model: Pick<ModelInfo, 'provider'> }) {
  if (isDemo(model)) {
    return (
      <span className="badge badge-demo" title={DEMO_HINT}>
        Demo
      </span>
    );
  }
  return <span className="badge badge-provider">{PROVIDER_NAMES[model.provider] ?? model.provider}</span>;
}
