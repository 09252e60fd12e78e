import { PasswordHasher } from './password-hasher';

describe('PasswordHasher', () => {
  // Small cost in unit tests; the format and logic are the same as production's.
  const hasher = new PasswordHasher({ log2N: 10, r: 8, p: 1 });

  it('verifies the right password and refuses others', async () => {
    const stored = await hasher.hash('correct horse battery staple');
    expect(stored).toMatch(/^scrypt\$10\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
    await expect(hasher.verify('correct horse battery staple', stored)).resolves.toBe(true);
    await expect(hasher.verify('correct horse battery stapl', stored)).resolves.toBe(false);
    await expect(hasher.verify('', stored)).resolves.toBe(false);
  });

  it('salts each hash, so equal passwords hash differently', async () => {
    const [a, b] = await Promise.all([hasher.hash('same password'), hasher.hash('same password')]);
    expect(a).not.toBe(b);
    await expect(hasher.verify('same password', b)).resolves.toBe(true);
  });

  it('treats canonically equivalent Unicode spellings as one password', async () => {
    const stored = await hasher.hash('caf\u00e9 au lait');
    await expect(hasher.verify('cafe\u0301 au lait', stored)).resolves.toBe(true);
  });

  it('never matches a malformed or foreign stored value', async () => {
    await expect(hasher.verify('x', 'plain-text')).resolves.toBe(false);
    await expect(hasher.verify('x', 'scrypt$99$8$1$AAAA$AAAA')).resolves.toBe(false);
    await expect(hasher.verify('x', 'bcrypt$2b$10$abc')).resolves.toBe(false);
  });

  it('answers false for the decoy, and asks for a rehash when the cost was lower', async () => {
    await expect(hasher.verifyDecoy('anything')).resolves.toBe(false);
    const weak = await new PasswordHasher({ log2N: 8, r: 8, p: 1 }).hash('pw');
    expect(hasher.needsRehash(weak)).toBe(true);
    expect(hasher.needsRehash(await hasher.hash('pw'))).toBe(false);
  });
});
