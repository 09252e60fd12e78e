import { RouteConfig } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';

/** The Fastify route config of a route that takes a raw body of any media type, streamed (uploads). */
export const RAW_BODY_ROUTE = { rawBody: true } as const;

/** Marks a route as taking its body raw, as a stream (not parsed, not limited by BODY_LIMIT_BYTES: the route counts). */
export const RawBodyRoute = () => RouteConfig(RAW_BODY_ROUTE);

/** Whether the request's route takes a raw body. */
export function takesRawBody(request: FastifyRequest): boolean {
  return (request.routeOptions?.config as { rawBody?: boolean } | undefined)?.rawBody === true;
}

/** The raw body of a RawBodyRoute request, or undefined when none was sent. */
export function rawBodyOf(request: FastifyRequest): Readable | undefined {
  return request.body as Readable | undefined;
}

/**
 * An answer given before the body was read to its end (refused by the key check, too large, not the
 * type it says) closes the connection, so the client is not left sending a file no one reads (nor is
 * the rest drained).
 */
export function closeIfBodyUnread(request: FastifyRequest, reply: FastifyReply): void {
  if (takesRawBody(request) && !request.raw.complete) void reply.header('Connection', 'close');
}
