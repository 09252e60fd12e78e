import { Writable } from 'node:stream';
import { DatabaseError } from 'pg';
import { QueryFailedError } from 'typeorm';
import { createPinoLogger } from './logger';
import { scrubString, withoutQuotedValues } from './redact';

/** A pino destination that keeps every line. */
function capture(): { stream: Writable; lines: () => Array<Record<string, unknown>>; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString('utf8'));
      done();
    },
  });
  const text = () => chunks.join('');
  return { stream, text, lines: () => text().trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>) };
}

const API_KEY = 'gsk_live_' + 'Ab3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF';
const SECRET = 'whsec_K1a9Xq3mZp7Rt2Vw8Yb4Nc6Df0Gh5Js1';
const SIGNATURE = 'sha256=3ca4443587f984604cabc525337d32bfaf5d0a43ffdbe5dce02c5821750f6016';
const PASSWORD = 'hunter2-very-secret';

describe('structured logs never carry credentials', () => {
  it('redacts secret fields, headers, and credential-shaped values anywhere in a line', () => {
    const out = capture();
    const log = createPinoLogger({ service: 'test', level: 'info', destination: out.stream });
    log.info({ headers: { authorization: `Bearer ${API_KEY}`, 'x-service-signature': SIGNATURE } }, 'incoming');
    log.info({ user: { password: PASSWORD, name: 'ada' }, webhookSecret: SECRET }, 'account');
    log.info({ config: { databaseUrl: `postgres://gen:${PASSWORD}@db:5432/gen` } }, 'configured');
    log.error({ err: new Error(`upstream refused key ${API_KEY} and ${SECRET}`) }, 'failure');
    log.warn(`retrying with Authorization: Bearer ${API_KEY}, signature ${SIGNATURE}`);
    log.info({ nested: { deeper: { list: [`postgres://svc:${PASSWORD}@10.0.0.7/x`, `?password=${PASSWORD}&a=1`] } } }, 'deep');

    const text = out.text();
    for (const secret of [API_KEY, SECRET, SIGNATURE.slice(7), PASSWORD]) expect(text).not.toContain(secret);
    const lines = out.lines();
    expect(lines).toHaveLength(6);
    expect(lines[0]).toMatchObject({ level: 'info', service: 'test', msg: 'incoming', headers: { authorization: '[redacted]' } });
    expect(lines[1]).toMatchObject({ user: { password: '[redacted]', name: 'ada' }, webhookSecret: '[redacted]' });
    expect((lines[3].err as { message: string }).message).toContain('[redacted]');
    expect(lines[4].msg).toBe('retrying with Authorization: Bearer [redacted], signature sha256=[redacted]');
  });

  it('logs host errors (an AbortSignal DOMException) without throwing, and keeps clean errors as they are', () => {
    const out = capture();
    const log = createPinoLogger({ service: 'test', level: 'info', destination: out.stream });
    const controller = new AbortController();
    controller.abort();
    expect(() => log.error({ err: controller.signal.reason }, 'aborted')).not.toThrow();
    expect(() => log.error({ err: AbortSignal.timeout(0).reason ?? new DOMException('x', 'TimeoutError') }, 'timeout')).not.toThrow();
    const plain = new Error('connection refused');
    log.error({ err: plain }, 'plain');
    const lines = out.lines();
    expect(lines[0]).toMatchObject({ msg: 'aborted', err: { type: 'DOMException', message: expect.stringContaining('abort') } });
    expect(lines[2]).toMatchObject({ err: { type: 'Error', message: 'connection refused', stack: expect.stringContaining('Error: connection refused') } });
  });

  it('keeps ordinary text and identifiers intact', () => {
    expect(scrubString('job 6f1c1c5e-3b1e-4a57-9c1a-6b2d0f0e9a11 done in 12 ms')).toBe('job 6f1c1c5e-3b1e-4a57-9c1a-6b2d0f0e9a11 done in 12 ms');
    expect(scrubString('https://example.com/hook?x=1')).toBe('https://example.com/hook?x=1');
    expect(scrubString('gsk_live_...')).toBe('gsk_live_...');
  });
});

describe('database errors are logged without their values', () => {
  const PROMPT = 'my confidential prompt about the merger';
  const EMAIL = 'ceo@example.com';
  const HASH = '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08';

  function pgError(message: string, fields: Partial<DatabaseError>): DatabaseError {
    return Object.assign(new DatabaseError(message, 100, 'error'), { severity: 'ERROR', ...fields });
  }

  it('keeps the statement, the SQLSTATE and the names; drops parameters, detail and quoted input', () => {
    const out = capture();
    const log = createPinoLogger({ service: 'test', level: 'info', destination: out.stream });
    const unique = pgError('duplicate key value violates unique constraint "users_email_key"', {
      code: '23505',
      detail: `Key (email)=(${EMAIL}) already exists.`,
      table: 'users',
      constraint: 'users_email_key',
      schema: 'auth',
    });
    const insert = 'INSERT INTO users (email, password_hash) VALUES ($1, $2)';
    log.error({ err: new QueryFailedError(insert, [EMAIL, HASH], unique) }, 'sign-up failed');
    const nul = pgError('invalid byte sequence for encoding "UTF8": 0x00', { code: '22021', where: `unnamed portal parameter $1 = '${PROMPT}'` });
    log.error({ err: new QueryFailedError('INSERT INTO jobs (prompt) VALUES ($1)', [PROMPT], nul) }, 'submit failed');
    const uuid = pgError(`invalid input syntax for type uuid: "${HASH}"`, { code: '22P02', routine: 'string_to_uuid' });
    log.error({ context: { failure: uuid } }, 'lookup failed');

    const text = out.text();
    for (const value of [PROMPT, EMAIL, HASH]) expect(text).not.toContain(value);
    const [first, second, third] = out.lines();
    expect(first.err).toMatchObject({
      type: 'QueryFailedError',
      code: '23505',
      query: insert,
      table: 'users',
      constraint: 'users_email_key',
      message: 'duplicate key value violates unique constraint "users_email_key"',
    });
    expect(first.err).not.toHaveProperty('parameters');
    expect(first.err).not.toHaveProperty('detail');
    expect(second.err).toMatchObject({ code: '22021', message: 'invalid byte sequence for encoding "UTF8": 0x00' });
    expect((third.context as { failure: unknown }).failure).toMatchObject({ code: '22P02', message: 'invalid input syntax for type uuid: "[redacted]"' });
  });

  it('replaces quoted values but keeps quoted names', () => {
    expect(withoutQuotedValues('value "12345678901" is out of range for type integer')).toBe('value "[redacted]" is out of range for type integer');
    expect(withoutQuotedValues('new row for relation "jobs" violates check constraint "jobs_credits_check"')).toBe(
      'new row for relation "jobs" violates check constraint "jobs_credits_check"',
    );
    expect(withoutQuotedValues('invalid input value for enum job_status: "x"')).toBe('invalid input value for enum job_status: "[redacted]"');
  });
});
