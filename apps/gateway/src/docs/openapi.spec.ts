import type { OpenAPIObject } from '@nestjs/swagger';
import { TAG_DESCRIPTIONS, toPublicDocument } from './openapi';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: { $ref: string }) => ({ content: { 'application/json': { schema } } });

/** What @nestjs/swagger generates, in small: a public route, a dashboard route, OpenAPI 3.0 nullables. */
const generated = (): OpenAPIObject => ({
  openapi: '3.1.0',
  info: { title: 't', version: '1' },
  paths: {
    '/api/v1/things': { get: { tags: ['things'], responses: { 200: { description: 'ok', ...json(ref('ThingDto')) } } } },
    '/cdn/{file}': { get: { tags: ['outputs'], responses: { 200: { description: 'the file' } } } },
    '/dashboard/api/keys': { post: { requestBody: json(ref('CreateKeyDto')), responses: { 201: { description: 'made' } } } },
    '/healthz': { get: { responses: { 200: { description: 'ok' } } } },
  },
  components: {
    schemas: {
      ThingDto: {
        type: 'object',
        properties: {
          part: { nullable: true, allOf: [ref('PartDto')], description: 'maybe' },
          kind: { type: 'string', nullable: true, enum: ['a', 'b'] },
          at: { type: 'string', format: 'date-time' },
          note: { type: 'string', nullable: true },
          fixed: { type: 'string', nullable: false, example: 'x' },
        },
      } as never,
      PartDto: { type: 'object', properties: { id: { type: 'string', format: 'uuid' } } },
      CreateKeyDto: { type: 'object', properties: { name: { type: 'string' } } },
      WebhookEventDto: { type: 'object', properties: {} },
    },
  },
});

describe('toPublicDocument', () => {
  const doc = toPublicDocument(generated());

  it('keeps the public API and the content host, nothing else', () => {
    expect(Object.keys(doc.paths)).toEqual(['/api/v1/things', '/cdn/{file}']);
  });

  it('keeps only the schemas those paths and the webhooks reach, through other schemas too', () => {
    expect(Object.keys(doc.components?.schemas ?? {}).sort()).toEqual(['PartDto', 'ThingDto', 'WebhookEventDto']);
  });

  it('writes nullable the OpenAPI 3.1 way', () => {
    const properties = (doc.components?.schemas?.ThingDto as { properties: Record<string, unknown> }).properties;
    expect(properties.part).toEqual({ description: 'maybe', anyOf: [ref('PartDto'), { type: 'null' }] });
    expect(properties.kind).toEqual({ type: ['string', 'null'], enum: ['a', 'b', null] });
    expect(properties.fixed).toEqual({ type: 'string', example: 'x' });
    expect(JSON.stringify(doc)).not.toContain('nullable');
  });

  it('gives string fields without an example one by their format (or null when they may be null)', () => {
    const properties = (doc.components?.schemas?.ThingDto as { properties: Record<string, { example?: unknown }> }).properties;
    expect(properties.at.example).toBe('2026-11-23T17:40:00.112Z');
    expect(properties.note.example).toBeNull();
    expect((doc.components?.schemas?.PartDto as { properties: Record<string, { example?: unknown }> }).properties.id.example).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('adds every webhook event, and the tags in use, each once, with their descriptions', () => {
    expect(Object.keys(doc.webhooks ?? {})).toEqual(['generation.completed', 'generation.failed', 'account.low_balance']);
    expect(doc.tags?.map((t) => t.name)).toEqual(['things', 'outputs', 'webhooks']);
    expect(doc.tags?.find((t) => t.name === 'outputs')?.description).toBe(TAG_DESCRIPTIONS.outputs);
    expect(doc.tags?.find((t) => t.name === 'webhooks')?.description).toBe(TAG_DESCRIPTIONS.webhooks);
  });

  it('says that the content host takes no key (security: [])', () => {
    expect(doc.paths['/cdn/{file}'].get?.security).toEqual([]);
    expect(doc.paths['/api/v1/things'].get?.security).toBeUndefined();
  });
});
