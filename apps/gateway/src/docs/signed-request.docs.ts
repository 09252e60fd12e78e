import type { ParameterObject } from '@nestjs/swagger';
import { DELIVERY_ID_HEADER, EVENT_HEADER, SIGNATURE_HEADER, TIMESTAMP_HEADER, WEBHOOK_USER_AGENT } from '@gen/webhook-signature';

/** The headers of every signed request the service sends (the spec's scheme), for `event`. */
export function signedRequestParameters(event: string): ParameterObject[] {
  return [
    { name: EVENT_HEADER, in: 'header', required: true, description: 'The event; equal to the body\'s `event`.', schema: { type: 'string', enum: [event] }, example: event },
    {
      name: TIMESTAMP_HEADER,
      in: 'header',
      required: true,
      description: 'When this attempt was signed, in Unix seconds.',
      schema: { type: 'string', pattern: '^[0-9]+$' },
      example: '1763919602',
    },
    {
      name: SIGNATURE_HEADER,
      in: 'header',
      required: true,
      description: '`sha256=` and the HMAC-SHA256 in lowercase hex (see above).',
      schema: { type: 'string', pattern: '^sha256=[0-9a-f]{64}$' },
      example: 'sha256=5d7b1c0e2f4a6b8c9d0e1f2a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e',
    },
    {
      name: DELIVERY_ID_HEADER,
      in: 'header',
      required: true,
      description: 'The delivery: `wh_` and at least 20 letters and digits, the same on every attempt. Opaque beyond the prefix.',
      schema: { type: 'string', pattern: '^wh_[A-Za-z0-9]{20,}$' },
      example: 'wh_4fQ9mZ2xLr7TbN1cVw8KpD3s',
    },
    { name: 'User-Agent', in: 'header', required: true, schema: { type: 'string', enum: [WEBHOOK_USER_AGENT] }, example: WEBHOOK_USER_AGENT },
  ];
}

/** What the service takes as the answer to a signed request (every webhook event). */
export const SIGNED_REQUEST_RESPONSES = {
  '2XX': { description: 'Received: no further attempt is made.' },
  default: { description: 'Any other answer, or none within 5 s: the attempt failed, and the next one follows (three in all).' },
};
