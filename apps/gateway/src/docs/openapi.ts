import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, OpenAPIObject, PathItemObject, SwaggerModule } from '@nestjs/swagger';
import {
  DEFAULT_TOLERANCE_SECONDS,
  DELIVERY_ID_HEADER,
  SIGNATURE_HEADER,
  TIMESTAMP_HEADER,
  WebhookEventName,
} from '@gen/webhook-signature';
import { API_KEY_SCHEME } from './api-docs.decorators';
import { AccountLowBalanceEventDto } from './account-event.dto';
import { WebhookEventDto } from './webhook-event.dto';
import { fillFormatExamples, reachableSchemas, toJsonSchema2020 } from './schema-rewrites';
import { lowBalanceWebhookOperation } from './account-webhooks.docs';
import { SIGNED_REQUEST_RESPONSES, signedRequestParameters } from './signed-request.docs';
import { GATEWAY_SETTINGS, GatewaySettings } from '../settings/gateway.tokens';

export const OPENAPI_JSON_PATH = '/api/v1/openapi.json';
export const API_DOCS_PATH = '/api/v1/docs';

/** What the public document describes: the API, and the content host its records link to. Not the dashboard's JSON API, probes or metrics. */
const PUBLIC_PATH_PREFIXES = ['/api/v1/', '/cdn/'];

const DESCRIPTION = [
  'Generate images, video, audio and 3D assets from a prompt, billed in credits.',
  '',
  'Every request carries `Authorization: Bearer <API_KEY>`: a key `gsk_live_...` made in the dashboard (Settings, API Keys),',
  'shown once. Every error is the envelope `{"error": {"code", "status", "message", "request_id"}}`, and every response',
  'carries `X-Request-Id`.',
  '',
  'Finished generations are also sent to your webhook URL as signed `POST` requests: see **Webhooks** below',
  '(`generation.completed`, `generation.failed`) for the headers, the body and how to verify the signature.',
].join('\n');

/**
 * Each tag's description (the document's sections). A route with a tag missing here gets none, which
 * the Redocly lint in test/e2e/openapi.e2e-spec.ts reports: add the tag here with its route.
 */
export const TAG_DESCRIPTIONS: Readonly<Record<string, string>> = {
  generations: 'Submit generations, read, list, cancel and follow them live, and their webhook deliveries.',
  batches: 'Batches: a JSONL file of generate requests run at a lower priority within a completion window, with results and errors files.',
  models: 'The model catalogue: which models exist, their prices, inputs and whether your plan may use them.',
  account: "Your account: the model catalogue, your plan's limits, credits and the credit ledger.",
  uploads: 'Input media (images, audio) uploaded for models that take them.',
  webhooks: 'Requests the service sends to you (the signed events), and test events on request.',
  outputs: "The content host: generations' output files, at the unguessable `output_url` of their records (no API key).",
};

/**
 * The operation id of a route that names none (its controller and method): one a customer's generated
 * client should never meet, so the OpenAPI e2e spec fails on it. Every public route names its own in
 * `@ApiOperation({ operationId })` (createGeneration, listModels, ...).
 */
const unnamedOperationId = (controller: string, method: string) => `${controller}_${method}`;

/** The OpenAPI 3.1 document of the public API, generated from the controllers and DTOs. */
export function buildOpenApiDocument(app: NestFastifyApplication): OpenAPIObject {
  const settings = app.get<GatewaySettings>(GATEWAY_SETTINGS, { strict: false });
  const config = new DocumentBuilder()
    .setOpenAPIVersion('3.1.0')
    .setTitle('Generation Service API')
    .setDescription(DESCRIPTION)
    .setVersion('1')
    .addServer(settings.publicBaseUrl, 'This deployment (PUBLIC_BASE_URL)')
    // addBearerAuth would declare `bearerFormat: JWT`: keys are opaque strings, not JWTs.
    .addSecurity(API_KEY_SCHEME, { type: 'http', scheme: 'bearer', description: 'An API key: `gsk_live_` followed by 32 letters and digits.' })
    .build();
  // Not open source: the API is used under the customer's agreement, which SPDX names with a LicenseRef.
  // (OpenAPI 3.1's `identifier`, which @nestjs/swagger's type does not know yet.)
  Object.assign(config.info, { license: { name: 'Proprietary: use under your Generation Service agreement', identifier: 'LicenseRef-Generation-Service-Agreement' } });
  const generated = SwaggerModule.createDocument(app, config, {
    operationIdFactory: unnamedOperationId,
    extraModels: [WebhookEventDto, AccountLowBalanceEventDto],
  });
  return toPublicDocument(generated);
}

/**
 * The public document from what @nestjs/swagger generated: only public paths, the webhooks added,
 * only the schemas those reach (so no DTO of an internal route is listed, whoever adds one), and the
 * schemas written as OpenAPI 3.1 (JSON Schema 2020-12) writes them.
 */
export function toPublicDocument(generated: OpenAPIObject): OpenAPIObject {
  const document: OpenAPIObject = {
    ...generated,
    openapi: '3.1.0',
    paths: Object.fromEntries(Object.entries(generated.paths).filter(([path]) => PUBLIC_PATH_PREFIXES.some((prefix) => path.startsWith(prefix)))),
    webhooks: {
      'generation.completed': webhookOperation('generation.completed'),
      'generation.failed': webhookOperation('generation.failed'),
      'account.low_balance': lowBalanceWebhookOperation(),
    },
  };
  const schemas = generated.components?.schemas ?? {};
  const reachable = reachableSchemas({ paths: document.paths, webhooks: document.webhooks }, schemas);
  document.components = {
    ...generated.components,
    schemas: Object.fromEntries(Object.entries(schemas).filter(([name]) => reachable.has(name))),
  };
  for (const [path, item] of Object.entries(document.paths)) {
    // The content host takes no API key: said explicitly, as every operation states its security.
    if (path.startsWith('/cdn/')) for (const operation of Object.values(item as Record<string, { security?: unknown[] }>)) operation.security = [];
  }
  const used = new Set(
    [...Object.values(document.paths), ...Object.values(document.webhooks ?? {})].flatMap((item) =>
      Object.values(item as Record<string, { tags?: string[] }>).flatMap((op) => op.tags ?? []),
    ),
  );
  document.tags = [...used].map((name) => (TAG_DESCRIPTIONS[name] ? { name, description: TAG_DESCRIPTIONS[name] } : { name }));
  toJsonSchema2020(document);
  fillFormatExamples(document.components.schemas ?? {});
  return document;
}

/** A webhook event as the document's `webhooks` entry: the request the service sends, and what it takes as success. */
function webhookOperation(event: WebhookEventName): PathItemObject {
  const completed = event === 'generation.completed';
  return {
    post: {
      operationId: completed ? 'generationCompleted' : 'generationFailed',
      tags: ['webhooks'],
      summary: completed ? 'A generation completed' : 'A generation failed (or was canceled)',
      description: [
        `Sent once per ${completed ? 'completed' : 'failed'} generation to the webhook URL of the API key that submitted it, or to`,
        'the `webhook_url` of its `POST /api/v1/generate`.',
        '',
        `**Signature.** \`${SIGNATURE_HEADER}\` is \`sha256=\` followed by the lowercase hex HMAC-SHA256 of`,
        `\`<${TIMESTAMP_HEADER}>.<raw body>\` (the timestamp, a dot, then the body bytes exactly as received), keyed with the`,
        "key's webhook signing secret (`whsec_...`, generated in the dashboard, Settings, API Keys). Verify against the raw",
        'body as received: re-serialising the JSON changes its bytes. Compare in constant time, and reject a timestamp more than',
        `${DEFAULT_TOLERANCE_SECONDS} seconds from your clock. Each attempt is signed at the moment it is sent, with the key's`,
        'current secret: after a renewal, the old secret fails at once.',
        '',
        '**Retries.** Up to three attempts: at once, then 2 s and 6 s after a failure, each with a 5 s timeout. Any 2xx',
        `answer is success; anything else (3xx included: redirects are not followed) is a failure. \`${DELIVERY_ID_HEADER}\``,
        'is the same on every attempt of a delivery: use it to drop duplicates.',
      ].join('\n'),
      security: [],
      parameters: signedRequestParameters(event),
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: { $ref: '#/components/schemas/WebhookEventDto' },
            example: completed
              ? {
                  event,
                  id: '3f8e2a1c-7b4d-4e9a-9c61-0d5b2f7a8e13',
                  status: 'completed',
                  type: 'TEXT_TO_IMAGE',
                  model: 'pixel-flux-1',
                  output_url: 'https://api.example.com/cdn/9b/9b1f0c6de2a84f7c8e3a5d2b1c0f4e6a.png',
                  credits_charged: 4,
                  error: null,
                  created_at: '2026-11-23T17:40:00.112Z',
                  completed_at: '2026-11-23T17:40:02.512Z',
                  outputs: [{ url: 'https://api.example.com/cdn/9b/9b1f0c6de2a84f7c8e3a5d2b1c0f4e6a.png', content_type: 'image/png', bytes: 48213, width: 512, height: 512 }],
                  input: {},
                  metadata: { order_id: 'A-1042' },
                }
              : {
                  event,
                  id: '7a0c9e52-1d3b-4f6e-8a2c-5b9d0e1f3a47',
                  status: 'failed',
                  type: 'TEXT_TO_VIDEO',
                  model: 'motion-lite-1',
                  output_url: null,
                  credits_charged: 0,
                  error: 'Canceled at your request. Your credits were refunded.',
                  created_at: '2026-11-23T17:41:00.000Z',
                  completed_at: '2026-11-23T17:41:05.250Z',
                  outputs: [],
                  input: {},
                  metadata: {},
                },
          },
        },
      },
      responses: SIGNED_REQUEST_RESPONSES,
    },
  };
}

/** Serves the document at /api/v1/openapi.json and a Swagger UI page at /api/v1/docs (no key needed). */
export function setupOpenApi(app: NestFastifyApplication): void {
  SwaggerModule.setup(API_DOCS_PATH.slice(1), app, () => buildOpenApiDocument(app), {
    jsonDocumentUrl: OPENAPI_JSON_PATH.slice(1),
    raw: ['json'],
    customSiteTitle: 'Generation Service API',
  });
}

