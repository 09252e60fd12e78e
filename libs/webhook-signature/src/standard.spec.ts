import { Webhook } from 'standardwebhooks';
import { newWebhookSecret, signStandard, standardSecretKey, standardSignatureHeaders } from '@gen/webhook-signature';

describe('Standard Webhooks signing', () => {
  const body = '{"event":"generation.completed","id":"3f8e2a1c-7b4d-4e9a-9c61-0d5b2f7a8e13"}';

  it('is what the standardwebhooks package verifies, with the secret as the dashboard shows it', () => {
    const secret = newWebhookSecret();
    const headers = standardSignatureHeaders({ id: 'wh_4fQ9mZ2xLr7TbN1cVw8KpD3s', secrets: [secret], body });
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
  });

  it('carries one signature per secret, space-separated, each verifying with its own secret only', () => {
    const [current, previous, other] = [newWebhookSecret(), newWebhookSecret(), newWebhookSecret()];
    const headers = standardSignatureHeaders({ id: 'wh_x', secrets: [current, previous], body });
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(() => new Webhook(current).verify(body, headers)).not.toThrow();
    expect(() => new Webhook(previous).verify(body, headers)).not.toThrow();
    expect(() => new Webhook(other).verify(body, headers)).toThrow();
  });

  it('signs <id>.<timestamp>.<body> with the base64-decoded secret (a known answer)', () => {
    // The example of the Standard Webhooks specification's reference libraries.
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    expect(standardSecretKey(secret)).toHaveLength(24);
    expect(signStandard({ secret, id: 'msg_p5jXN8AQM9LWM0D4loKWxJek', timestamp: 1614265330, body: '{"test": 2432232314}' })).toBe(
      'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    );
  });

  it('refuses a secret that is not base64 after the prefix', () => {
    expect(() => standardSecretKey('whsec_not base64!')).toThrow(TypeError);
  });
});
