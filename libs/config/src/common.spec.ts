import { ConfigError, EnvReader } from './env';
import { readTrustProxy } from './common';

describe('readTrustProxy', () => {
  const read = (value?: string) => {
    const env = new EnvReader(value === undefined ? {} : { TRUST_PROXY: value });
    const result = readTrustProxy(env);
    env.done();
    return result;
  };

  it('trusts no proxy by default, so X-Forwarded-For cannot choose the client address', () => {
    expect(read()).toBe(false);
    expect(read('false')).toBe(false);
  });

  it('accepts a hop count or a list of proxy addresses', () => {
    expect(read('1')).toBe(1);
    expect(read('10.0.0.0/8, 127.0.0.1')).toBe('10.0.0.0/8, 127.0.0.1');
  });

  it('refuses anything else with a message naming the variable (no blanket "true")', () => {
    expect(() => read('true')).toThrow(ConfigError);
    expect(() => read('everyone')).toThrow(/TRUST_PROXY/);
  });
});
