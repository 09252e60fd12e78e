import { DomainError, InsufficientCreditsError, RateLimitError, UnauthorizedError, ValidationError } from '@gen/errors';
import { toOpenAiError } from './openai-errors';
import { OpenAiRefusal } from './openai-refusal.error';

const request = { method: 'POST', url: '/openai/v1/images/generations' };
const err = (message: string, type: string, code: string | null, param: string | null = null) => ({ error: { message, type, code, param } });

describe('toOpenAiError', () => {
  it('maps the route\'s refusals to OpenAI\'s statuses', () => {
    expect(toOpenAiError(new OpenAiRefusal('model_not_found', 'gone', 'model'), request)).toEqual({ status: 404, body: err('gone', 'invalid_request_error', 'model_not_found', 'model'), headers: {} });
    expect(toOpenAiError(new OpenAiRefusal('content_policy_violation', 'no', 'prompt'), request).status).toBe(400);
    expect(toOpenAiError(new OpenAiRefusal('generation_pending', 'later'), request)).toMatchObject({ status: 504, headers: { 'x-should-retry': 'false' } });
  });

  it('maps the service\'s errors: validation names the param, billing is insufficient_quota, rate limits keep retry-after', () => {
    expect(toOpenAiError(new ValidationError('n must be an integer'), request).body).toEqual(err('n must be an integer', 'invalid_request_error', 'invalid_value', 'n'));
    expect(toOpenAiError(new ValidationError('style: unknown field'), request).body.error.param).toBe('style');
    expect(toOpenAiError(new ValidationError('The request body must be a JSON object.'), request).body.error.param).toBeNull();
    expect(toOpenAiError(new UnauthorizedError('Missing API key'), request)).toMatchObject({ status: 401, body: { error: { code: 'invalid_api_key' } } });
    expect(toOpenAiError(new InsufficientCreditsError(4, 1, 'pixel-flux-1'), request)).toMatchObject({
      status: 429,
      body: { error: { type: 'insufficient_quota', code: 'insufficient_quota' } },
      headers: { 'x-should-retry': 'false' },
    });
    expect(toOpenAiError(new RateLimitError('slow down', 12), request)).toMatchObject({ status: 429, body: { error: { type: 'requests', code: 'rate_limit_exceeded' } }, headers: { 'retry-after': '12' } });
    expect(toOpenAiError(new DomainError('not_found', 'x'), { method: 'GET', url: '/openai/v1/nope?x=1' }).body.error.message).toMatch(/^Invalid URL \(GET \/openai\/v1\/nope\)/);
    expect(toOpenAiError(new Error('boom'), request)).toMatchObject({ status: 500, body: { error: { type: 'server_error', code: 'internal_error' } } });
  });
});
