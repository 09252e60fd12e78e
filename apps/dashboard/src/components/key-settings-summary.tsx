import type { ApiKey } from '../api/api';

/** A key's webhook URL, signature scheme and caps as text, for members who may not change them (below admin). */
export function KeySettingsSummary({ apiKey }: { apiKey: ApiKey }) {
  const caps = apiKey.caps;
  const cap = (value: number | null | undefined, period: string) => (value === null || value === undefined ? `no ${period} cap` : `${value} credits per ${period}`);
  return (
    <dl className="key-meta small key-summary">
      <div>
        <dt>Webhook URL</dt>
        <dd className="break">{apiKey.webhook_url ?? 'None'}</dd>
      </div>
      <div>
        <dt>Signature scheme</dt>
        <dd>{apiKey.webhook_scheme === 'standard' ? 'Standard Webhooks' : 'Service headers'}</dd>
      </div>
      <div>
        <dt>Spending caps</dt>
        <dd>
          {cap(caps?.per_day, 'day')}, {cap(caps?.per_month, 'month')}
        </dd>
      </div>
    </dl>
  );
}
