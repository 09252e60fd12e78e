import { CogCallbackVerifier } from './cog.callback';

describe('cog callbacks: verification', () => {
  const v = new CogCallbackVerifier();
  const delivery = (body: string) => ({ headers: {}, body: Buffer.from(body) });

  it('accepts the prediction stored on the job (the token in the URL is the proof: Cog signs nothing)', async () => {
    await expect(v.verify(delivery('{"id":"abc","status":"succeeded"}'), 'cog:abc')).resolves.toEqual({ ok: true, deliveryId: null });
  });

  it('refuses another prediction, a job with none stored, and a body that is not a prediction', async () => {
    await expect(v.verify(delivery('{"id":"xyz","status":"succeeded"}'), 'cog:abc')).resolves.toMatchObject({ ok: false, reason: 'mismatch' });
    await expect(v.verify(delivery('{"id":"abc"}'), null)).resolves.toMatchObject({ ok: false, reason: 'mismatch' });
    await expect(v.verify(delivery('{"id":"abc"}'), 'replicate:abc')).resolves.toMatchObject({ ok: false, reason: 'mismatch' });
    for (const body of ['', '[]', '{"id":1}', 'not json']) await expect(v.verify(delivery(body), 'cog:abc')).resolves.toMatchObject({ ok: false, reason: 'malformed' });
  });
});
