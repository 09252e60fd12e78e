import { MAX_PROMPT_LENGTH } from '@gen/contracts';
import { MAX_IMAGES, MAX_USER_LENGTH, RESPONSE_FORMATS } from './image-request.dto';

/** Where the OpenAI-compatible API's own OpenAPI document is served. */
export const OPENAI_OPENAPI_PATH = '/openai/v1/openapi.json';

const error = (description: string, example: { message: string; type: string; param: string | null; code: string }) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' }, example: { error: example } } },
});

const COMMON_ERRORS = {
  '401': error('No key, or not a live key.', { message: 'A valid API key is required: send "Authorization: Bearer <API_KEY>".', type: 'invalid_request_error', param: null, code: 'invalid_api_key' }),
  '429': {
    description: 'The rate limit (`type: requests`, with `retry-after`), or not enough credits (`type: insufficient_quota`, with `x-should-retry: false`).',
    headers: {
      'retry-after': { description: 'Seconds until a retry may pass (rate limit only).', schema: { type: 'integer', minimum: 1 } },
      'x-should-retry': { description: '`false` on the billing error: OpenAI clients then do not retry.', schema: { type: 'string', enum: ['false'] } },
    },
    content: {
      'application/json': {
        schema: { $ref: '#/components/schemas/Error' },
        examples: {
          rate_limit: { summary: 'Rate limit', value: { error: { message: 'Rate limit exceeded: 10 requests per minute on the free plan.', type: 'requests', param: null, code: 'rate_limit_exceeded' } } },
          insufficient_quota: {
            summary: 'Not enough credits',
            value: { error: { message: 'Insufficient credits: model "pixel-flux-1" needs at least 4 available credits; this account has 1.', type: 'insufficient_quota', param: null, code: 'insufficient_quota' } },
          },
        },
      },
    },
  },
};

/**
 * The OpenAPI 3.1 document of /openai/v1 (docs/guide/openai-compatible.md): its own document, apart
 * from /api/v1's, because its shapes and errors are OpenAI's, not this service's envelope.
 */
export function openAiOpenApiDocument(publicBaseUrl: string): Record<string, unknown> {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Generation Service: OpenAI-compatible images API',
      version: '1',
      description: "OpenAI's Images API shapes, for OpenAI's own clients pointed at `<base>/openai/v1`. Each call is a generation of the service, charged in credits.",
      license: { name: 'Proprietary: use under your Generation Service agreement', identifier: 'LicenseRef-Generation-Service-Agreement' },
    },
    servers: [{ url: `${publicBaseUrl}/openai/v1`, description: 'This deployment (PUBLIC_BASE_URL)' }],
    security: [{ apiKey: [] }],
    tags: [
      { name: 'images', description: 'Making images.' },
      { name: 'models', description: 'The models served here.' },
    ],
    paths: {
      '/images/generations': {
        post: {
          operationId: 'createImage',
          tags: ['images'],
          summary: 'Make images from a prompt',
          description: "One generation of the model, mapped by its catalogue `openai` block; waits for the images.",
          requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/CreateImageRequest' } } } },
          responses: {
            '200': { description: 'The images.', content: { 'application/json': { schema: { $ref: '#/components/schemas/ImagesResponse' } } } },
            '400': error('A field missing or not taken by the model, a model without a mapping, or a refused prompt.', { message: 'Invalid size "1024x1024" for model "pixel-flux-1": it takes 512x512, auto.', type: 'invalid_request_error', param: 'size', code: 'invalid_value' }),
            ...COMMON_ERRORS,
            '404': error('No model has this id.', { message: 'The model "no-such-model" does not exist. See GET /openai/v1/models.', type: 'invalid_request_error', param: 'model', code: 'model_not_found' }),
            '500': error('The generation failed; nothing was charged.', { message: 'The generation failed. Your credits were refunded.', type: 'server_error', param: null, code: 'generation_failed' }),
            '504': error('Still running after the wait; it goes on.', { message: 'The image is still being made; it is generation 9b1f0c6d-e2a8-4f7c-8e3a-5d2b1c0f4e6a.', type: 'server_error', param: null, code: 'generation_pending' }),
          },
        },
      },
      '/models': {
        get: {
          operationId: 'listModels',
          tags: ['models'],
          summary: 'The models served here that your plan may use',
          responses: { '200': { description: 'The list.', content: { 'application/json': { schema: { $ref: '#/components/schemas/ModelList' } } } }, ...COMMON_ERRORS },
        },
      },
      '/models/{model}': {
        get: {
          operationId: 'retrieveModel',
          tags: ['models'],
          summary: 'One model served here',
          parameters: [{ name: 'model', in: 'path', required: true, schema: { type: 'string', example: 'pixel-flux-1' } }],
          responses: {
            '200': { description: 'The model.', content: { 'application/json': { schema: { $ref: '#/components/schemas/Model' } } } },
            '404': error('Not served here.', { message: 'The model "plain-1" does not exist or is not served by the OpenAI-compatible API.', type: 'invalid_request_error', param: 'model', code: 'model_not_found' }),
            ...COMMON_ERRORS,
          },
        },
      },
    },
    components: {
      securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: 'An API key of the service: `gsk_live_` followed by 32 letters and digits.' } },
      schemas: {
        CreateImageRequest: {
          type: 'object',
          required: ['model', 'prompt'],
          additionalProperties: false,
          properties: {
            model: { type: 'string', maxLength: 100, example: 'pixel-flux-1' },
            prompt: { type: 'string', minLength: 1, maxLength: MAX_PROMPT_LENGTH, example: 'a lighthouse at dusk' },
            n: { type: 'integer', minimum: 1, maximum: MAX_IMAGES, default: 1 },
            size: { type: 'string', example: '512x512', description: '`WIDTHxHEIGHT` or `auto`, as the model maps it.' },
            quality: { type: 'string', example: 'high', description: "Passed to the model's quality input where it maps one." },
            response_format: { type: 'string', enum: [...RESPONSE_FORMATS], default: 'url' },
            user: { type: 'string', maxLength: MAX_USER_LENGTH, example: 'end-user-7', description: "Kept in the generation's metadata as `openai_user`." },
          },
        },
        ImagesResponse: {
          type: 'object',
          required: ['created', 'data'],
          properties: {
            created: { type: 'integer', description: 'Unix seconds of the generation.' },
            data: {
              type: 'array',
              items: {
                type: 'object',
                properties: {
                  url: { type: 'string', format: 'uri', example: 'https://gen.example.com/cdn/9b/9b1f0c6de2a84f7c8e3a5d2b1c0f4e6a.png' },
                  b64_json: { type: 'string', contentEncoding: 'base64', example: 'iVBORw0KGgo=' },
                },
              },
            },
          },
        },
        Model: {
          type: 'object',
          required: ['id', 'object', 'created', 'owned_by'],
          properties: {
            id: { type: 'string', example: 'pixel-flux-1' },
            object: { type: 'string', enum: ['model'] },
            created: { type: 'integer', description: '0: the catalogue keeps no creation date.' },
            owned_by: { type: 'string', example: 'demo', description: "The model's provider." },
          },
        },
        ModelList: {
          type: 'object',
          required: ['object', 'data'],
          properties: { object: { type: 'string', enum: ['list'] }, data: { type: 'array', items: { $ref: '#/components/schemas/Model' } } },
        },
        Error: {
          type: 'object',
          required: ['error'],
          properties: {
            error: {
              type: 'object',
              required: ['message', 'type', 'param', 'code'],
              properties: {
                message: { type: 'string', example: 'The model "no-such-model" does not exist.' },
                type: { type: 'string', example: 'invalid_request_error' },
                param: { type: ['string', 'null'], example: 'model' },
                code: { type: ['string', 'null'], example: 'model_not_found' },
              },
            },
          },
        },
      },
    },
  };
}
