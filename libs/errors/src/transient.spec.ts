import { mapHttpError } from './http-error.mapper';
import { toRpcErrorPayload } from './envelope';
import { isTransientDatabaseError } from './transient';

const pgError = (code: string, message = `pg ${code}`) => Object.assign(new Error(message), { code });

describe('isTransientDatabaseError', () => {
  it.each([
    ['admin shutdown (pg_ctl restart -m fast)', pgError('57P01', 'terminating connection due to administrator command')],
    ['crash shutdown (-m immediate)', pgError('57P02')],
    ['cannot connect now (starting up)', pgError('57P03', 'the database system is starting up')],
    ['connection exception 08006', pgError('08006')],
    ['connection exception 08001', pgError('08001')],
    ['serialization failure', pgError('40001')],
    ['deadlock', pgError('40P01')],
    ['a refused connection', pgError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432')],
    ['a reset connection', pgError('ECONNRESET')],
    ['node-postgres losing its connection', new Error('Connection terminated unexpectedly')],
    ['a pool that cannot connect in time', new Error('timeout exceeded when trying to connect')],
    ['TypeORM wrapping the driver error', Object.assign(new Error('Query failed'), { driverError: pgError('57P01') })],
    ['every address refused (AggregateError)', Object.assign(new AggregateError([pgError('ECONNREFUSED'), pgError('ECONNREFUSED')]), {})],
  ])('%s is transient', (_, error) => expect(isTransientDatabaseError(error)).toBe(true));

  it.each([
    ['a unique violation', pgError('23505')],
    ['a malformed uuid', pgError('22P02')],
    ['a syntax error', pgError('42601')],
    ['a plain error', new Error('boom')],
    ['not an error', 'Connection terminated'],
    ['null', null],
  ])('%s is not', (_, error) => expect(isTransientDatabaseError(error)).toBe(false));
});

describe('a transient database error on the wire', () => {
  it('is 503 service_unavailable with a retry hint over HTTP, never 500', () => {
    expect(mapHttpError(pgError('57P01', 'terminating connection due to administrator command'))).toMatchObject({
      status: 503,
      code: 'service_unavailable',
      retryAfterSeconds: 1,
      unexpected: false,
    });
    expect(mapHttpError(new Error('Connection terminated unexpectedly')).message).not.toContain('Connection terminated');
  });

  it('crosses a message transport as service_unavailable', () => {
    expect(toRpcErrorPayload(pgError('08006'))).toMatchObject({ code: 'service_unavailable', status: 503, retryAfterSeconds: 1 });
  });
});
