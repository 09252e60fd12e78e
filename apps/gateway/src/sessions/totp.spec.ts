import { hashRecoveryCode, isTotpCode, newRecoveryCodes, newTotpSecret, totpCode, totpStep, totpUri } from './totp';

describe('TOTP and recovery codes', () => {
  const secret = newTotpSecret();
  const at = Date.UTC(2026, 10, 26, 12, 0, 15);
  const step = Math.floor(at / 30_000);

  it('a code is valid for its own step and the neighbouring ones (30 s of drift), and not beyond', () => {
    expect(totpStep(secret, totpCode(secret, at), at)).toBe(step);
    expect(totpStep(secret, totpCode(secret, at - 30_000), at)).toBe(step - 1);
    expect(totpStep(secret, totpCode(secret, at + 30_000), at)).toBe(step + 1);
    expect(totpStep(secret, totpCode(secret, at - 90_000), at)).toBeNull();
    expect(totpStep(secret, totpCode(secret, at), at + 90_000)).toBeNull();
  });

  it('accepts spaces, refuses anything but six digits and a code of another secret', () => {
    const code = totpCode(secret, at);
    expect(totpStep(secret, `${code.slice(0, 3)} ${code.slice(3)}`, at)).toBe(step);
    expect(totpStep(secret, code.slice(0, 5), at)).toBeNull();
    expect(totpStep(secret, 'abcdef', at)).toBeNull();
    const other = newTotpSecret();
    // A six-digit code of another secret matches by chance one time in ~333,000 (3 steps of 10^6).
    expect(totpStep(other, code, at) === null || totpCode(other, at) === code).toBe(true);
    expect([isTotpCode('123 456'), isTotpCode('12345'), isTotpCode('k7m2p-x9qrt')]).toEqual([true, false, false]);
  });

  it('makes an otpauth URI with the issuer, the email and the secret', () => {
    const uri = new URL(totpUri(secret, 'ann@example.com'));
    expect(uri.protocol).toBe('otpauth:');
    expect(uri.searchParams.get('secret')).toBe(secret);
    expect(uri.searchParams.get('issuer')).toBe('Generation Service');
    expect(decodeURIComponent(uri.pathname)).toContain('ann@example.com');
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
  });

  it('ten distinct recovery codes; their hash ignores case and dashes and depends on the user', () => {
    const codes = newRecoveryCodes();
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const code of codes) expect(code).toMatch(/^[a-hjkmnp-z2-9]{5}(-[a-hjkmnp-z2-9]{5}){3}$/);
    const [code] = codes;
    expect(hashRecoveryCode('u1', code.toUpperCase().replace(/-/g, ' '))).toEqual(hashRecoveryCode('u1', code));
    expect(hashRecoveryCode('u2', code)).not.toEqual(hashRecoveryCode('u1', code));
  });
});
