import { WebhookDestinationPolicy } from './ip-policy';
import { MAX_WEBHOOK_URL_LENGTH, validateWebhookUrl } from './url-policy';

const PRODUCTION: WebhookDestinationPolicy = { allowHttp: false, allowPrivate: false, allowList: [] };
const DEVELOPMENT: WebhookDestinationPolicy = { allowHttp: true, allowPrivate: true, allowList: [] };

/** A URL of exactly `length` characters. */
function urlOfLength(length: number): string {
  const prefix = 'https://example.com/';
  return prefix + 'a'.repeat(length - prefix.length);
}

describe('validateWebhookUrl (production policy)', () => {
  it.each([
    ['https://example.com/webhooks', 'https://example.com/webhooks'],
    ['https://Example.COM:8443/a/b?c=d&e=f#fragment', 'https://example.com:8443/a/b?c=d&e=f#fragment'],
    ['https://hooks.example.com/a%20b?x=%41', 'https://hooks.example.com/a%20b?x=%41'],
    ['https://my-hooks.example.com:443/', 'https://my-hooks.example.com/'],
    ['https://bücher.example/hook', 'https://xn--bcher-kva.example/hook'],
    ['https://8.8.8.8/hook', 'https://8.8.8.8/hook'],
    ['https://[2606:4700:4700::1111]/hook', 'https://[2606:4700:4700::1111]/hook'],
    ['https://[::ffff:8.8.8.8]/', 'https://[::ffff:808:808]/'],
    // A hostname is accepted now and its addresses checked at connect time (it may rebind).
    ['https://rebind.test/hook', 'https://rebind.test/hook'],
    ['https://127.0.0.1.nip.io/', 'https://127.0.0.1.nip.io/'],
    [urlOfLength(MAX_WEBHOOK_URL_LENGTH), urlOfLength(MAX_WEBHOOK_URL_LENGTH)],
  ])('accepts %s', (input, href) => {
    const result = validateWebhookUrl(input, PRODUCTION);
    expect(result).toEqual({ ok: true, url: expect.any(URL) });
    expect(result.ok && result.url.href).toBe(href);
  });

  it.each([
    // form
    ['', /required/],
    ['example.com/webhooks', /absolute URL/],
    ['/webhooks', /absolute URL/],
    ['https://', /absolute URL/],
    ['https://exa mple.com/', /spaces or control/],
    [' https://example.com/', /spaces or control/],
    ['https://example.com/\n', /spaces or control/],
    ['https://exa\tmple.com/', /spaces or control/],
    ['https://example.com/\u0000', /spaces or control/],
    [urlOfLength(MAX_WEBHOOK_URL_LENGTH + 1), /too long/],
    // scheme
    ['http://example.com/webhooks', /must use https/],
    ['ftp://example.com/', /must use https/],
    ['file:///etc/passwd', /must use https/],
    ['javascript:alert(1)', /must use https/],
    ['ws://example.com/', /must use https/],
    // credentials
    ['https://user:pass@example.com/', /user name or password/],
    ['https://user@example.com/', /user name or password/],
    ['https://:pass@example.com/', /user name or password/],
    // IPv4 literals, in every spelling the URL parser normalises
    ['https://127.0.0.1/', /loopback address \(127\.0\.0\.1\)/],
    ['https://127.0.0.1:8080/hook', /loopback/],
    ['https://0x7f.1/', /loopback address \(127\.0\.0\.1\)/],
    ['https://2130706433/', /loopback address \(127\.0\.0\.1\)/],
    ['https://017700000001/', /loopback address \(127\.0\.0\.1\)/],
    ['https://127.000.000.001/', /loopback/],
    ['https://10.0.0.1/', /private network/],
    ['https://172.16.0.1/', /private network/],
    ['https://172.31.255.255/', /private network/],
    ['https://192.168.1.1/', /private network/],
    ['https://169.254.1.1/', /link-local/],
    ['https://169.254.169.254/latest/meta-data/', /cloud metadata/],
    ['https://100.64.0.1/', /carrier-grade NAT/],
    ['https://0.0.0.0/', /unspecified/],
    ['https://0/', /unspecified/],
    ['https://224.0.0.1/', /multicast/],
    ['https://255.255.255.255/', /broadcast/],
    ['https://240.0.0.1/', /reserved/],
    // IPv6 literals
    ['https://[::1]/', /loopback address \(::1\)/],
    ['https://[::]/', /unspecified/],
    ['https://[fe80::1]/', /link-local/],
    ['https://[fc00::1]/', /unique local/],
    ['https://[fd00:ec2::254]/', /cloud metadata/],
    ['https://[ff02::1]/', /multicast/],
    ['https://[::ffff:127.0.0.1]/', /loopback address \(::ffff:7f00:1\)/],
    ['https://[::ffff:7f00:1]/', /loopback/],
    ['https://[::ffff:a9fe:a9fe]/', /cloud metadata/],
    ['https://[64:ff9b::7f00:1]/', /loopback/],
    ['https://[2002:c0a8:101::]/', /private network/],
    ['https://[2001:0:4136:e378:8000:63bf:3f57:fefe]/', /private network/],
    // a host written otherwise than plainly (each spelling the URL parser would quietly rewrite)
    ['https://hooks.example.com./', /must not end with a dot/],
    ['https://hooks.example.com.:8443/x', /must not end with a dot/],
    ['https://ho%6Fks.example.com/', /percent-encoded/],
    ['https://%68ooks.example.com/', /percent-encoded/],
    ['https://user%40x@hooks.example.com/', /user name or password/],
    ['https://hooks_1.example.com/', /not a valid host name/],
    ['https://-hooks.example.com/', /not a valid host name/],
    ['https://hooks.example.com\t', /spaces or control/],
    ['\thttps://hooks.example.com/', /spaces or control/],
    [' https://hooks.example.com/', /spaces or control/],
    ['https://hooks.example.com/ ', /spaces or control/],
    [`https://${'a'.repeat(64)}.example.com/`, /not a valid host name/],
    ['https://0x8.0x8.0x8.0x8/', /dotted decimal \(8\.8\.8\.8\)/],
    ['https://134744072/', /dotted decimal/],
    ['https://8.8.8.010/', /dotted decimal/],
    // names that always mean this machine
    ['https://localhost/', /local machine/],
    ['https://LOCALHOST./', /local machine/],
    ['https://api.localhost:3000/', /local machine/],
  ])('refuses %p', (input, reason) => {
    const result = validateWebhookUrl(input, PRODUCTION);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.reason).toMatch(reason);
  });

  it('gives reasons that are sentences for the client', () => {
    expect(validateWebhookUrl('http://example.com/', PRODUCTION)).toEqual({
      ok: false,
      reason: 'Webhook URL must use https.',
    });
  });
});

describe('validateWebhookUrl (development and allow-list)', () => {
  it.each([
    'http://localhost:3000/hook',
    'http://127.0.0.1:3000/hook',
    'http://[::1]:3000/hook',
    'http://10.0.0.5/hook',
    'http://[fd12::1]/hook',
    'https://example.com/',
  ])('allowHttp + allowPrivate accept %s', (input) => {
    expect(validateWebhookUrl(input, DEVELOPMENT).ok).toBe(true);
  });

  it.each([
    ['http://169.254.169.254/', /cloud metadata/],
    ['http://0.0.0.0:3000/', /unspecified/],
    ['http://224.0.0.1/', /multicast/],
    ['ftp://localhost/', /must use https/],
    ['http://u:p@localhost/', /user name or password/],
  ])('allowHttp + allowPrivate still refuse %s', (input, reason) => {
    const result = validateWebhookUrl(input, DEVELOPMENT);
    expect(!result.ok && result.reason).toMatch(reason);
  });

  it('accepts allow-listed CIDRs and hostnames, and nothing next to them', () => {
    const policy: WebhookDestinationPolicy = {
      allowHttp: false,
      allowPrivate: false,
      allowList: ['127.0.0.1/32', '10.1.0.0/16', 'localhost'],
    };
    expect(validateWebhookUrl('https://127.0.0.1/', policy).ok).toBe(true);
    expect(validateWebhookUrl('https://[::ffff:127.0.0.1]/', policy).ok).toBe(true);
    expect(validateWebhookUrl('https://10.1.2.3/', policy).ok).toBe(true);
    expect(validateWebhookUrl('https://localhost/', policy).ok).toBe(true);
    expect(validateWebhookUrl('https://127.0.0.2/', policy).ok).toBe(false);
    expect(validateWebhookUrl('https://10.2.0.1/', policy).ok).toBe(false);
    expect(validateWebhookUrl('https://api.localhost/', policy).ok).toBe(false);
    expect(validateWebhookUrl('http://127.0.0.1/', policy).ok).toBe(false); // still https only
  });

  it('fails closed, without echoing the configuration, when the allow-list is invalid', () => {
    const result = validateWebhookUrl('https://example.com/', { ...PRODUCTION, allowList: ['10.0.0.0/99'] });
    expect(result).toEqual({ ok: false, reason: 'Webhook URLs cannot be accepted at the moment.' });
  });
});

describe('validateWebhookUrl: the ports the deployment delivers to (WEBHOOK_ALLOWED_PORTS)', () => {
  const ONLY_443: WebhookDestinationPolicy = { ...PRODUCTION, ports: [443] };

  it.each(['https://example.com/hook', 'https://example.com:443/hook'])('accepts %s on 443', (url) => {
    expect(validateWebhookUrl(url, ONLY_443).ok).toBe(true);
  });

  it('refuses another port with the reason, as a 422 says it', () => {
    expect(validateWebhookUrl('https://example.com:8443/hook', ONLY_443)).toEqual({
      ok: false,
      reason: 'Webhook URL port 8443 is not allowed: this deployment delivers webhooks only to port 443.',
    });
    expect(validateWebhookUrl('http://example.com/hook', { ...DEVELOPMENT, ports: [443, 8443] })).toEqual({
      ok: false,
      reason: 'Webhook URL port 80 is not allowed: this deployment delivers webhooks only to ports 443, 8443.',
    });
  });

  it('accepts any port when the list is empty or absent', () => {
    expect(validateWebhookUrl('https://example.com:8443/hook', { ...PRODUCTION, ports: [] }).ok).toBe(true);
    expect(validateWebhookUrl('https://example.com:8443/hook', PRODUCTION).ok).toBe(true);
  });
});

