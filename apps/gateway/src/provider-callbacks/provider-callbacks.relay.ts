import { Injectable } from '@nestjs/common';
import type { IncomingHttpHeaders } from 'node:http';
import {
  CALLBACK_HEADERS,
  CALLBACK_TOKEN_SHAPE,
  CallbackHeader,
  CallbackRefusal,
  isCallbackProvider,
  MAX_CALLBACK_HEADER_LENGTH,
  MAX_CALLBACK_TOKEN_LENGTH,
  ProviderCallbackReply,
  ProviderCallbackRequest,
  Subjects,
} from '@gen/contracts';
import { DomainError, ErrorCode, NotFoundError } from '@gen/errors';
import { RpcClient } from '@gen/transport';
import { ProviderCallbackMetrics } from './provider-callback-metrics';

/** The envelope code of each refusal (its HTTP status): the provider retries 5xx and may retry 4xx; either way nothing changed. */
const REFUSAL_CODES: Record<CallbackRefusal, ErrorCode> = {
  token: 'not_found',
  unknown_job: 'not_found',
  malformed: 'bad_request',
  signature: 'unauthorized',
  timestamp: 'unauthorized',
  replayed: 'conflict',
  mismatch: 'conflict',
  not_parked: 'conflict',
  finished: 'conflict',
  unverifiable: 'service_unavailable',
};

const NOT_OURS = 'No callback is expected at this URL.';

/**
 * Hands a provider's callback to the generation service as it came (the raw body, the signature
 * headers) and answers what it decided: `200 {"status": "accepted"}` when the parked job was made
 * due, else the refusal in the envelope. The gateway reads nothing of the body itself.
 */
@Injectable()
export class ProviderCallbacksRelay {
  constructor(
    private readonly rpc: RpcClient,
    private readonly metrics: ProviderCallbackMetrics,
  ) {}

  async forward(raw: object, provider: string, token: string, headers: IncomingHttpHeaders, body: Buffer): Promise<{ status: 'accepted' }> {
    if (!isCallbackProvider(provider) || token.length > MAX_CALLBACK_TOKEN_LENGTH || !CALLBACK_TOKEN_SHAPE.test(token)) throw new NotFoundError(NOT_OURS);
    const forwarded: Partial<Record<CallbackHeader, string>> = {};
    for (const name of CALLBACK_HEADERS) {
      const value = headers[name];
      if (typeof value !== 'string') continue;
      if (value.length > MAX_CALLBACK_HEADER_LENGTH) throw new DomainError('bad_request', `The ${name} header is too long.`);
      forwarded[name] = value;
    }
    const reply = await this.rpc.request<ProviderCallbackReply, ProviderCallbackRequest>(Subjects.generationProviderCallback, {
      provider,
      token,
      headers: forwarded,
      body: body.toString('base64'),
    });
    this.metrics.answered(raw, reply);
    if (reply.outcome === 'woken') return { status: 'accepted' };
    throw new DomainError(REFUSAL_CODES[reply.reason], reply.message, reply.reason === 'unverifiable' ? 30 : undefined);
  }
}
