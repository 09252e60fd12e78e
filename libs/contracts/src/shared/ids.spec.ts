import { isUuid } from './ids';

describe('isUuid', () => {
  it('takes a UUID in any case and any version, nil included', () => {
    expect(isUuid('2ceb6409-d7cd-4eba-af2e-3b855a1d1387')).toBe(true);
    expect(isUuid('2CEB6409-D7CD-4EBA-AF2E-3B855A1D1387')).toBe(true);
    expect(isUuid('00000000-0000-0000-0000-000000000000')).toBe(true);
    expect(isUuid('abcdef01-2345-f789-0bcd-ef0123456789')).toBe(true);
  });

  it('refuses anything else', () => {
    for (const value of ['', ' 2ceb6409-d7cd-4eba-af2e-3b855a1d1387', '2ceb6409d7cd4ebaaf2e3b855a1d1387', '2ceb6409-d7cd-4eba-af2e-3b855a1d138g', 42, null, undefined, {}]) {
      expect(isUuid(value)).toBe(false);
    }
  });
});
