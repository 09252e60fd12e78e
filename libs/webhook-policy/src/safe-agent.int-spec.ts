import { LookupAddress } from 'node:dns';
import { Server, createServer } from 'node:http';
import { AddressInfo, LookupFunction } from 'node:net';
import { Agent, fetch, request } from 'undici';
import { ForbiddenAddressReason, WebhookDestinationPolicy } from './ip-policy';
import { ForbiddenDestinationError, ResolveAddresses, createSafeDispatcher, createSafeLookup } from './safe-agent';
import { validateWebhookUrl } from './url-policy';

/** What tests make hostnames resolve to. Anything else is NXDOMAIN. */
const FAKE_DNS: Record<string, string[]> = {
  'rebind.test': ['127.0.0.1'],
  'mixed.test': ['93.184.215.14', '127.0.0.1'],
  'v6only.test': ['2606:4700:4700::1111'],
};

const fakeLookup: ResolveAddresses = async (hostname) => {
  const addresses = FAKE_DNS[hostname];
  if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

const BASE: WebhookDestinationPolicy = { allowHttp: true, allowPrivate: false, allowList: [] };

/** The rejection of `promise`, which must reject. */
async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected the request to fail');
}

describe('createSafeDispatcher: connect-time checks against a real local server', () => {
  let server: Server;
  let port: number;
  let requests = 0;
  let connections = 0;
  const agents: Agent[] = [];

  const dispatcher = (policy: Partial<WebhookDestinationPolicy> = {}, lookup: ResolveAddresses = fakeLookup): Agent => {
    const agent = createSafeDispatcher({ ...BASE, ...policy }, { lookup, connectTimeoutMs: 2_000 });
    agents.push(agent);
    return agent;
  };

  const post = async (url: string, agent: Agent): Promise<number> => {
    const res = await request(url, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' }, dispatcher: agent });
    await res.body.text();
    return res.statusCode;
  };

  beforeAll(async () => {
    server = createServer((req, res) => {
      requests++;
      req.resume();
      req.on('end', () => res.writeHead(204).end());
    });
    server.on('connection', () => connections++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterEach(async () => {
    await Promise.all(agents.splice(0).map((agent) => agent.close()));
    requests = 0;
    connections = 0;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
  });

  it('refuses a hostname that passed URL validation but resolves to 127.0.0.1, without reaching the server', async () => {
    const url = `http://rebind.test:${port}/hook`;
    expect(validateWebhookUrl(url, BASE).ok).toBe(true); // nothing to see at submit time

    const err = await rejectionOf(post(url, dispatcher()));
    expect(err).toBeInstanceOf(ForbiddenDestinationError);
    expect(err).toMatchObject({
      code: 'ERR_WEBHOOK_FORBIDDEN_DESTINATION',
      hostname: 'rebind.test',
      address: '127.0.0.1',
      reason: 'loopback',
      message: 'Webhook destination rebind.test refused: it resolves to 127.0.0.1, a loopback address',
    });
    expect(requests).toBe(0);
    expect(connections).toBe(0);
  });

  it('succeeds for the same hostname when 127.0.0.1/32 is allow-listed', async () => {
    expect(await post(`http://rebind.test:${port}/hook`, dispatcher({ allowList: ['127.0.0.1/32'] }))).toBe(204);
    expect(requests).toBe(1);
  });

  it('succeeds when the hostname itself is allow-listed', async () => {
    expect(await post(`http://rebind.test:${port}/hook`, dispatcher({ allowList: ['rebind.test'] }))).toBe(204);
    expect(requests).toBe(1);
  });

  it('succeeds with allowPrivate', async () => {
    expect(await post(`http://rebind.test:${port}/hook`, dispatcher({ allowPrivate: true }))).toBe(204);
  });

  it('refuses a hostname when ANY of its addresses is forbidden, even if the first is public', async () => {
    const err = await rejectionOf(post(`http://mixed.test:${port}/hook`, dispatcher()));
    expect(err).toMatchObject({ name: 'ForbiddenDestinationError', address: '127.0.0.1', reason: 'loopback' });
    expect(requests).toBe(0);
  });

  it('checks the answer of every connection: a name that rebinds after a good answer is refused', async () => {
    let calls = 0;
    // First answer public (as a pre-flight check would have seen), then loopback at delivery.
    const rebinding: ResolveAddresses = async () => [{ address: calls++ === 0 ? '93.184.215.14' : '127.0.0.1', family: 4 }];
    const lookup = createSafeLookup(BASE, rebinding);
    const first = await new Promise((resolve) => lookup('rebind.test', { all: true }, (err, addresses) => resolve(err ?? addresses)));
    expect(first).toEqual([{ address: '93.184.215.14', family: 4 }]);

    const err = await rejectionOf(post(`http://rebind.test:${port}/hook`, dispatcher({}, rebinding)));
    expect(err).toMatchObject({ reason: 'loopback', address: '127.0.0.1' });
    expect(requests).toBe(0);
  });

  it('refuses IP literals before connecting (net.connect never calls lookup for them)', async () => {
    const err = await rejectionOf(post(`http://127.0.0.1:${port}/hook`, dispatcher()));
    expect(err).toMatchObject({ name: 'ForbiddenDestinationError', address: '127.0.0.1', reason: 'loopback' });
    expect(await rejectionOf(post(`http://[::1]:${port}/hook`, dispatcher()))).toMatchObject({ reason: 'loopback' });
    expect(await rejectionOf(post(`http://[::ffff:7f00:1]:${port}/hook`, dispatcher()))).toMatchObject({ reason: 'loopback' });
    expect(await rejectionOf(post(`http://169.254.169.254/latest`, dispatcher()))).toMatchObject({ reason: 'cloud_metadata' });
    expect(connections).toBe(0);

    expect(await post(`http://127.0.0.1:${port}/hook`, dispatcher({ allowList: ['127.0.0.1/32'] }))).toBe(204);
  });

  it('checks https destinations the same way (tls.connect hands the lookup to net.connect)', async () => {
    const err = await rejectionOf(post(`https://rebind.test:${port}/hook`, dispatcher({ allowHttp: false })));
    expect(err).toMatchObject({ name: 'ForbiddenDestinationError', address: '127.0.0.1', reason: 'loopback' });
    expect(connections).toBe(0);
  });

  it('refuses http when the policy does not allow it', async () => {
    const err = await rejectionOf(post(`http://rebind.test:${port}/hook`, dispatcher({ allowHttp: false, allowList: ['127.0.0.1/32'] })));
    expect(err).toMatchObject({ name: 'ForbiddenDestinationError', reason: 'insecure_protocol' });
    expect(requests).toBe(0);
  });

  it('resolves with the system resolver by default: localhost is refused', async () => {
    const agent = createSafeDispatcher(BASE);
    agents.push(agent);
    const err = await rejectionOf(post(`http://localhost:${port}/hook`, agent));
    expect(err).toBeInstanceOf(ForbiddenDestinationError);
    expect((err as ForbiddenDestinationError).reason).toBe('loopback');
    expect(requests).toBe(0);
  });

  it('reaches fetch callers as the cause of its TypeError', async () => {
    const err = await rejectionOf(fetch(`http://rebind.test:${port}/hook`, { method: 'POST', body: '{}', dispatcher: dispatcher() }));
    expect(err).toBeInstanceOf(TypeError);
    expect((err as TypeError).cause).toBeInstanceOf(ForbiddenDestinationError);
  });

  it('keeps connections alive between deliveries to the same origin', async () => {
    const agent = dispatcher({ allowList: ['127.0.0.1/32'] });
    for (let i = 0; i < 3; i++) {
      expect(await post(`http://rebind.test:${port}/hook`, agent)).toBe(204);
      // Deliveries are not back-to-back in the same tick: let undici mark the connection idle (a
      // request dispatched while it is still busy would open a second one, by design of its pool).
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(requests).toBe(3);
    expect(connections).toBe(1);
  });

  it('opens at most connectionsPerOrigin connections to one origin; more requests wait for one', async () => {
    const agent = createSafeDispatcher({ ...BASE, allowList: ['127.0.0.1/32'] }, { lookup: fakeLookup, connectionsPerOrigin: 2 });
    agents.push(agent);
    const before = connections;
    const statuses = await Promise.all(Array.from({ length: 6 }, () => post(`http://rebind.test:${port}/hook`, agent)));
    expect(statuses).toEqual([204, 204, 204, 204, 204, 204]);
    expect(connections - before).toBeLessThanOrEqual(2);
  });

  it('applies connectTimeoutMs to resolution and connection together', async () => {
    const hanging: ResolveAddresses = () => new Promise<readonly LookupAddress[]>(() => undefined);
    const agent = createSafeDispatcher(BASE, { lookup: hanging, connectTimeoutMs: 200 });
    agents.push(agent);
    const started = Date.now();
    const err = await rejectionOf(post(`http://slow.test:${port}/hook`, agent));
    expect(err).toMatchObject({ code: 'UND_ERR_CONNECT_TIMEOUT' });
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it('passes resolution failures through', async () => {
    expect(await rejectionOf(post(`http://nxdomain.test:${port}/hook`, dispatcher()))).toMatchObject({ code: 'ENOTFOUND' });
  });

  it('throws at construction on an invalid allow-list or timeout', () => {
    expect(() => createSafeDispatcher({ ...BASE, allowList: ['10.0.0.0/40'] })).toThrow(/allow-list/);
    expect(() => createSafeDispatcher(BASE, { connectTimeoutMs: 0 })).toThrow(RangeError);
    expect(() => createSafeDispatcher(BASE, { connectionsPerOrigin: 0 })).toThrow(RangeError);
  });
});

describe('createSafeLookup: every range at connect time', () => {
  /** Calls the lookup as net.connect does, with the resolver answering `address` for any name. */
  function lookupOnce(
    address: string,
    policy: Partial<WebhookDestinationPolicy> = {},
    options: { all: boolean; family?: number } = { all: true },
    hostname = 'customer.example',
  ): Promise<{ err: NodeJS.ErrnoException | null; result: unknown }> {
    const resolve: ResolveAddresses = async () => [{ address, family: address.includes(':') ? 6 : 4 }];
    const lookup: LookupFunction = createSafeLookup({ ...BASE, ...policy }, resolve);
    return new Promise((done) => {
      lookup(hostname, options, (err, result, family) => done({ err, result: options.all ? result : [result, family] }));
    });
  }

  it.each<[string, ForbiddenAddressReason]>([
    ['127.0.0.1', 'loopback'],
    ['127.9.9.9', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.1.1', 'link_local'],
    ['169.254.169.254', 'cloud_metadata'],
    ['100.64.0.1', 'carrier_grade_nat'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.251', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'link_local'],
    ['fc00::1', 'unique_local'],
    ['fd00::1', 'unique_local'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:192.168.0.1', 'private'],
    ['64:ff9b::7f00:1', 'loopback'],
    ['2002:a00:1::', 'private'],
    ['2001:0:4136:e378:8000:63bf:3f57:fefe', 'private'],
  ])('refuses a name resolving to %s (%s)', async (address, reason) => {
    const { err } = await lookupOnce(address);
    expect(err).toBeInstanceOf(ForbiddenDestinationError);
    expect(err).toMatchObject({ hostname: 'customer.example', address, reason });
  });

  it.each(['8.8.8.8', '93.184.215.14', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808'])(
    'accepts a name resolving to %s, and hands over exactly that address',
    async (address) => {
      const family = address.includes(':') ? 6 : 4;
      expect(await lookupOnce(address)).toEqual({ err: null, result: [{ address, family }] });
      expect(await lookupOnce(address, {}, { all: false })).toEqual({ err: null, result: [address, family] });
    },
  );

  it.each([
    ['127.0.0.1', { allowList: ['127.0.0.1/32'] }],
    ['10.1.2.3', { allowList: ['10.0.0.0/8'] }],
    ['fd12::1', { allowList: ['fd00::/8'] }],
    ['192.168.1.1', { allowPrivate: true }],
    ['::1', { allowPrivate: true }],
    ['10.1.2.3', { allowList: ['customer.example'] }],
    ['169.254.169.254', { allowList: ['*.example'] }],
  ])('accepts %s under %p', async (address, policy) => {
    expect((await lookupOnce(address, policy)).err).toBeNull();
  });

  it.each([
    ['169.254.169.254', { allowPrivate: true }, 'cloud_metadata'],
    ['0.0.0.0', { allowPrivate: true }, 'unspecified'],
    ['127.0.0.2', { allowList: ['127.0.0.1/32'] }, 'loopback'],
    ['10.1.2.3', { allowList: ['other.example'] }, 'private'],
  ])('still refuses %s under %p', async (address, policy, reason) => {
    expect((await lookupOnce(address, policy)).err).toMatchObject({ reason });
  });

  it('honours the address family net.connect asks for', async () => {
    const { err } = await lookupOnce('2606:4700:4700::1111', {}, { all: true, family: 4 });
    expect(err).toMatchObject({ code: 'ENOTFOUND' });
  });
});
