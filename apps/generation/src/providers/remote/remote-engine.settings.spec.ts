import { parseRemoteEngineSettings, REMOTE_DEFAULTS } from './remote-engine.settings';

const parse = (raw: Record<string, unknown>) => {
  const problems: string[] = [];
  return { settings: parseRemoteEngineSettings(raw, 'r', problems), problems };
};

describe('parseRemoteEngineSettings', () => {
  it('fills the defaults and normalises what it is given', () => {
    const { settings, problems } = parse({
      baseUrl: 'https://up.test/api/',
      statusPath: null,
      upstreamModel: ' big-model ',
      auth: { header: ' X-Key ', valueEnv: 'UP_KEY' },
      outputOrigins: ['https://files.up.test/'],
    });
    expect(problems).toEqual([]);
    expect(settings).toEqual({
      ...REMOTE_DEFAULTS,
      baseUrl: 'https://up.test/api',
      cancelPath: null,
      upstreamModel: 'big-model',
      auth: { header: 'X-Key', valueEnv: 'UP_KEY', prefix: '' },
      params: {},
      outputOrigins: ['https://files.up.test'],
      maxPollIntervalMs: 10_000,
    });
  });

  it('refuses each bad setting, naming it', () => {
    expect(
      parse({ baseUrl: 'https://up.test', submitPath: 'v1', statusPath: '/v1/{job}', cancelPath: 3, upstreamModel: ' ', params: [], outputOrigins: ['ftp://files.up.test'], extra: 1 }).problems,
    ).toEqual([
      'r.extra is not a known setting',
      'r.submitPath must be a path starting with "/"',
      'r.statusPath must contain "{id}"',
      'r.cancelPath must be a path starting with "/"',
      'r.upstreamModel must be a non-empty string',
      'r.params must be an object of static parameters',
      'r.outputOrigins[0] must use http or https',
    ]);
  });

  it('takes the credential only by the name of its variable', () => {
    expect(parse({ baseUrl: 'https://up.test', auth: 'Bearer x' }).problems).toEqual(['r.auth must be an object with "header" and "valueEnv"']);
    expect(parse({ baseUrl: 'https://up.test', auth: { header: 'Authorization', valueEnv: 'KEY', value: 'sk-1', prefix: 'a\nb' } }).problems).toEqual([
      'r.auth.prefix must be a string on one line',
      'r.auth.value: a credential is never stored in the catalogue; name its environment variable in auth.valueEnv',
    ]);
    expect(parse({ baseUrl: 'https://up.test', auth: { header: 'Bad Header', valueEnv: 'sk-live' } }).problems).toEqual([
      'r.auth.header must be an HTTP header name',
      'r.auth.valueEnv must name the environment variable holding the credential (A-Z, 0-9, _)',
    ]);
  });

  it('checks the timings against each other', () => {
    expect(parse({ baseUrl: 'https://up.test', timeouts: { requestMs: 5_000, totalMs: 1_000 } }).problems).toEqual(['r.timeouts.requestMs must not exceed timeouts.totalMs']);
  });
});
