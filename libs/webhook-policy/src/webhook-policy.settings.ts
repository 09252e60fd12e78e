import { byMode, custom, EnvReader, flag, list } from '@gen/config';
import { parseAllowList, WebhookDestinationPolicy } from './ip-policy';

/**
 * The deployment's webhook destination rules, read by the gateway (which refuses a `webhook_url`
 * or a key's default URL with 422) and by the webhooks service (which sends), so both accept
 * exactly the same URLs. Distributed: https to public addresses only, unless set.
 */
export const WEBHOOK_DESTINATION_VARIABLES = {
  allowHttp: flag('WEBHOOK_ALLOW_HTTP', byMode({ standalone: true, distributed: false }), 'allow `http://` destinations'),
  allowPrivate: flag('WEBHOOK_ALLOW_PRIVATE_NETWORKS', byMode({ standalone: true, distributed: false }), 'allow loopback/private destinations'),
  allowList: list('WEBHOOK_ALLOW_LIST', 'CIDRs or host names always allowed (an on-premise receiver)', (entries) => parseAllowList(entries)),
  ports: custom<number[]>(
    'WEBHOOK_ALLOWED_PORTS',
    [],
    'ports a webhook URL may use, comma-separated (empty: any); in Kubernetes, the ports the egress NetworkPolicy opens (check-k8s fails when the two differ)',
    [],
    (value, problem) => {
      const ports = value.split(',').map((part) => part.trim()).filter((part) => part.length > 0);
      const bad = ports.find((part) => !/^\d+$/.test(part) || Number(part) < 1 || Number(part) > 65_535);
      if (bad !== undefined) {
        problem(`WEBHOOK_ALLOWED_PORTS must list ports from 1 to 65535 (got "${bad}")`);
        return undefined;
      }
      return [...new Set(ports.map(Number))];
    },
  ),
};

export function readWebhookDestinationPolicy(env: EnvReader): WebhookDestinationPolicy {
  return env.readAll(WEBHOOK_DESTINATION_VARIABLES);
}
