import { BindingSpec, readBinding } from './binding-settings';

const SPEC: BindingSpec = {
  defaultBaseUrl: 'https://api.provider.test',
  upstreamModel: { required: true, pattern: /^[a-z]+\/[a-z]+$/, hint: '"owner/name"' },
  tokenEnv: 'required',
  defaults: { requestMs: 20_000, totalMs: 90_000, outputOrigins: ['https://cdn.provider.test'] },
  reservedInput: ['model'],
  callbacks: false,
};

const read = (raw: Record<string, unknown>, spec: BindingSpec = SPEC) => {
  const problems: string[] = [];
  const binding = readBinding(raw, 'b', spec, problems);
  return { settings: binding?.settings ?? null, problems };
};

describe('readBinding', () => {
  it("fills the defaults, the kind's where they are the kind's", () => {
    expect(read({ upstreamModel: 'a/b', tokenEnv: 'TOKEN', timeouts: null, maxInFlight: null })).toEqual({
      problems: [],
      settings: {
        baseUrl: 'https://api.provider.test',
        upstreamModel: 'a/b',
        tokenEnv: 'TOKEN',
        input: {},
        inputMap: {},
        promptField: 'prompt',
        seedField: null,
        connectTimeoutMs: 5_000,
        requestTimeoutMs: 20_000,
        totalTimeoutMs: 90_000,
        pollIntervalMs: 1_000,
        retries: 2,
        maxOutputBytes: 100 * 1024 * 1024,
        outputOrigins: ['https://cdn.provider.test'],
        outputPath: null,
        callbacks: false,
        maxPollIntervalMs: 10_000,
        maxInFlight: null,
        maxRequestsPerSecond: null,
      },
    });
  });

  it('normalises URLs and origins, splits the output path, and keeps the given values', () => {
    const { settings } = read({
      upstreamModel: 'a/b',
      tokenEnv: 'TOKEN',
      baseUrl: ' https://proxy.test/v1/ ',
      outputOrigins: ['HTTPS://*.Files.Test', 'https://files.test:8443/'],
      outputPath: 'images.*.url',
      pollIntervalMs: 20_000,
      input: { size: 'big' },
      inputMap: { num_outputs: 'n' },
      seedField: 'seed',
    });
    expect(settings).toMatchObject({
      baseUrl: 'https://proxy.test/v1',
      outputOrigins: ['https://*.files.test', 'https://files.test:8443'],
      outputPath: ['images', '*', 'url'],
      maxPollIntervalMs: 20_000,
      input: { size: 'big' },
      inputMap: { num_outputs: 'n' },
      seedField: 'seed',
    });
  });

  it('refuses null where a value is needed, and names every bad item of a list', () => {
    expect(read({ upstreamModel: 'a/b', tokenEnv: 'TOKEN', pollIntervalMs: null, seedField: null, outputOrigins: ['https://ok.test', 'ftp://x', 'https://a.test/p'] }).problems).toEqual([
      'b.seedField must be a field name (letters, digits, _)',
      'b.outputOrigins[1] must use http or https',
      'b.outputOrigins[2] must be an origin (scheme, host, port), without a path',
      'b.pollIntervalMs must be an integer between 10 and 60000',
    ]);
  });

  it("applies the kind's rules: base URL, model, token variable, reserved input, callbacks", () => {
    const selfHosted: BindingSpec = { ...SPEC, defaultBaseUrl: null, upstreamModel: 'refused', tokenEnv: 'optional' };
    expect(read({ upstreamModel: 'x/y' }, selfHosted).problems).toEqual([
      'b.baseUrl must be an http(s) URL',
      'b.upstreamModel: this engine serves one model; remove the setting',
    ]);
    expect(read({ upstreamModel: 'nope', input: { model: 'x' }, callbacks: true }).problems).toEqual([
      'b.upstreamModel must be "owner/name"',
      'b.tokenEnv is required: the name of the environment variable holding the API token',
      'b.input.model is set by the engine itself; remove it',
      "b.callbacks: this engine's provider does not call back; remove the setting (polling is how its jobs are followed)",
    ]);
  });

  it('checks the settings against each other once each is valid', () => {
    expect(read({ upstreamModel: 'a/b', tokenEnv: 'T', input: { seed: 1 }, seedField: 'seed', timeouts: { requestMs: 95_000 }, maxPollIntervalMs: 500, pollIntervalMs: 800 }).problems).toEqual([
      'b.input.seed is set from each generation (seedField); remove it',
      'b.timeouts.requestMs must not exceed timeouts.totalMs',
      'b.maxPollIntervalMs must not be less than pollIntervalMs',
    ]);
  });

  it('names only a pasted credential, not the settings beside it; lists the known settings of an unknown one', () => {
    expect(read({ upstreamModel: 'a/b', tokenEnv: 'T', apiKey: 'sk', headers: {}, colour: 1 }).problems).toEqual([
      'b.apiKey: a credential is never stored in the catalogue; name the environment variable holding it in tokenEnv',
      'b.headers: a credential is never stored in the catalogue; name the environment variable holding it in tokenEnv',
    ]);
    const [unknown, nested] = read({ upstreamModel: 'a/b', tokenEnv: 'T', colour: 1, timeouts: { idleMs: 1 } }).problems;
    expect(unknown).toMatch(/^b\.colour is not a setting of this engine \(known: timeouts, pollIntervalMs, .*baseUrl, upstreamModel, tokenEnv, .*callbacks\)$/);
    expect(nested).toBe('b.timeouts.idleMs is not a known setting');
  });

  it('refuses a __proto__ key (JSON.parse makes it an own property) instead of losing it', () => {
    const raw = JSON.parse('{"upstreamModel": "a/b", "tokenEnv": "T", "input": {"__proto__": {"size": 1}}}') as Record<string, unknown>;
    expect(read(raw).problems).toEqual(['b.input.__proto__ is a reserved name, never a field']);
  });
});
