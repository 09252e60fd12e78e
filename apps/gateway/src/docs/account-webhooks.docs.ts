import type { PathItemObject } from '@nestjs/swagger';
import { SIGNED_REQUEST_RESPONSES, signedRequestParameters } from './signed-request.docs';

/** `account.low_balance` as the document's `webhooks` entry: signed and retried as generation events are. */
export function lowBalanceWebhookOperation(): PathItemObject {
  const event = 'account.low_balance';
  return {
    post: {
      operationId: 'accountLowBalance',
      tags: ['webhooks'],
      summary: "The account's available credits fell below its alert threshold",
      description: [
        'Sent once per crossing of the low-balance threshold set in the dashboard (Settings, Account) or by the operator,',
        "to each distinct default webhook URL of the account's active keys that have a signing secret, signed with the",
        "secret of the oldest such key. Another alert follows only after the balance is back at or above the threshold.",
        '',
        'Signed, retried and logged exactly as the generation events are (same headers and HMAC-SHA256 over',
        '`<X-Service-Timestamp>.<raw body>`); `id` is the same in every delivery of one crossing.',
      ].join('\n'),
      security: [],
      parameters: signedRequestParameters(event),
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: { $ref: '#/components/schemas/AccountLowBalanceEventDto' },
            example: {
              event,
              id: '0c6f3e2a-94d1-4b7e-8f25-6a1d9c3b7e40',
              account_id: '5b2e7d10-3c4a-4f8e-9a61-2d7c0e9f1b35',
              threshold: 150,
              available: 149,
              created_at: '2026-11-23T17:45:10.021Z',
            },
          },
        },
      },
      responses: SIGNED_REQUEST_RESPONSES,
    },
  };
}
