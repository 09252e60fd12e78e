import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { API_KEY_SCHEME } from '../api/docs/api-docs.decorators';

export const OPENAPI_JSON_PATH = '/api/v1/openapi.json';
export const API_DOCS_PATH = '/api/v1/docs';

/** The OpenAPI 3 document of the public API, generated from the controllers and DTOs. */
export function buildOpenApiDocument(app: NestFastifyApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Generation Service API')
    .setDescription(
      [
        'Generate images, video, audio and 3D assets from a prompt, billed in credits.',
        '',
        'Every request carries `Authorization: Bearer <API_KEY>`. Every error is the envelope',
        '`{"error": {"code", "status", "message", "request_id"}}`, and every response carries `X-Request-Id`.',
        'Finished generations can also be delivered as signed webhooks (see docs/webhooks.md).',
      ].join('\n'),
    )
    .setVersion('1')
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'An API key: gsk_live_ followed by 32 characters.' }, API_KEY_SCHEME)
    .build();
  const document = SwaggerModule.createDocument(app, config, { operationIdFactory: (_controller, method) => method });
  // The public API only: the dashboard's own JSON API (session cookies, CSRF) is not part of it.
  document.paths = Object.fromEntries(Object.entries(document.paths).filter(([path]) => path.startsWith('/api/v1/')));
  return document;
}

/** Serves the document at /api/v1/openapi.json and a Swagger UI page at /api/v1/docs (no key needed). */
export function setupOpenApi(app: NestFastifyApplication): void {
  SwaggerModule.setup(API_DOCS_PATH.slice(1), app, () => buildOpenApiDocument(app), {
    jsonDocumentUrl: OPENAPI_JSON_PATH.slice(1),
    raw: ['json'],
    customSiteTitle: 'Generation Service API',
  });
}
