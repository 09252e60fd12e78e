import { HttpException, NotFoundException } from '@nestjs/common';
import { DomainError, InsufficientCreditsError, RateLimitError, SpendingCapReachedError, spendingPeriodEnd } from './domain-error';
import { INTERNAL_ERROR_MESSAGE, toRpcErrorPayload } from './envelope';
import { domainErrorFromFastify, mapHttpError } from './http-error.mapper';

describe('mapHttpError', () => {
  it('turns an unexpected error into internal_error without leaking its message', () => {
    const mapped = mapHttpError(new Error('connect ECONNREFUSED 10.0.0.7:5432 password=hunter2'));
    expect(mapped).toMatchObject({ status: 500, code: 'internal_error', message: INTERNAL_ERROR_MESSAGE, unexpected: true });
    expect(mapped.message).not.toContain('10.0.0.7');
  });

  it('keeps a domain error\'s code, status, message and retry hint', () => {
    expect(mapHttpError(new InsufficientCreditsError(12, 3, 'pixel-flux-1-hd'))).toMatchObject({
      status: 402,
      code: 'insufficient_credits',
      message: expect.stringContaining('at least 12'),
    });
    expect(mapHttpError(new RateLimitError('slow down', 2.2))).toMatchObject({ status: 429, retryAfterSeconds: 3 });
  });

  it('maps a spending cap to 402 spending_cap_reached naming the cap, the spend and the reset', () => {
    const error = new SpendingCapReachedError('day', 10, 8, 4, spendingPeriodEnd('day', new Date('2026-11-26T13:05:00Z')));
    expect(mapHttpError(error)).toEqual({
      status: 402,
      code: 'spending_cap_reached',
      message:
        'Spending cap reached: this API key may spend 10 credits per day (UTC); it has spent 8 today and this generation needs 4. ' +
        'The cap resets at 2026-11-27T00:00:00Z.',
      unexpected: false,
    });
    expect(spendingPeriodEnd('month', new Date('2026-12-31T23:59:59Z')).toISOString()).toBe('2027-01-01T00:00:00.000Z');
    expect(spendingPeriodEnd('day', new Date('2026-02-28T00:00:00Z')).toISOString()).toBe('2026-03-01T00:00:00.000Z');
  });

  it('rebuilds an error that crossed a transport as its envelope fields', () => {
    const payload = toRpcErrorPayload(new DomainError('not_found', 'No generation with that id.'));
    expect(mapHttpError(payload)).toMatchObject({ status: 404, code: 'not_found', message: 'No generation with that id.' });
  });

  it('never forwards an internal message that crossed a transport', () => {
    expect(mapHttpError({ code: 'internal_error', status: 500, message: 'stack at db.ts:12' })).toMatchObject({
      message: INTERNAL_ERROR_MESSAGE,
    });
  });

  it.each([
    ['FST_ERR_CTP_INVALID_JSON_BODY', 400, 'bad_request'],
    ['FST_ERR_CTP_EMPTY_JSON_BODY', 400, 'bad_request'],
    ['FST_ERR_CTP_INVALID_MEDIA_TYPE', 415, 'unsupported_media_type'],
    ['FST_ERR_CTP_BODY_TOO_LARGE', 413, 'payload_too_large'],
    ['FST_ERR_BAD_URL', 400, 'bad_request'],
    ['FST_ERR_MAX_PARAM_LENGTH', 414, 'uri_too_long'],
  ])('maps Fastify %s to %i %s', (fastifyCode, status, code) => {
    const error = Object.assign(new Error("'/api/v1/generations/%E0%A4%A' raw fastify text"), { code: fastifyCode, statusCode: status });
    expect(mapHttpError(error)).toMatchObject({ status, code, unexpected: false });
    expect(mapHttpError(error).message).not.toContain('/api/v1');
  });

  it('maps framework HTTP exceptions by status', () => {
    expect(mapHttpError(new NotFoundException('Cannot GET /x'))).toMatchObject({ status: 404, code: 'not_found' });
    expect(mapHttpError(new HttpException('boom', 500))).toMatchObject({ status: 500, message: INTERNAL_ERROR_MESSAGE });
  });

  it('turns an error Fastify raised into the domain error it stands for (before Nest would wrap it), and nothing else', () => {
    const fastify = Object.assign(new Error("Body is not valid JSON but content-type is set to 'application/json'"), {
      code: 'FST_ERR_CTP_INVALID_JSON_BODY',
      statusCode: 400,
    });
    expect(domainErrorFromFastify(fastify)).toMatchObject({ code: 'bad_request', message: 'The request body is not valid JSON.' });
    expect(domainErrorFromFastify(new Error('boom'))).toBeUndefined();
    expect(domainErrorFromFastify(new NotFoundException())).toBeUndefined();
  });
});
