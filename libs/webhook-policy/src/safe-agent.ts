import { LookupAddress, promises as dns } from 'node:dns';
import { LookupFunction, isIP } from 'node:net';
import { Agent, buildConnector } from 'undici';
import {
  ForbiddenAddressReason,
  ParsedAllowList,
  WebhookDestinationPolicy,
  checkAddress,
  isHostnameAllowListed,
  parseAllowList,
} from './ip-policy';

/** Resolves a hostname to all its addresses (the shape of `dns.lookup(name, { all: true })`). */
export type ResolveAddresses = (hostname: string) => Promise<readonly LookupAddress[]>;

export interface SafeDispatcherOptions {
  /** Time allowed for DNS resolution, TCP connect and TLS handshake together. Default 5000 ms. */
  connectTimeoutMs?: number;
  /** How long an idle keep-alive connection is kept. Default 4000 ms. */
  keepAliveTimeoutMs?: number;
  /** Upper bound for a server-advertised keep-alive timeout. Default 60000 ms. */
  keepAliveMaxTimeoutMs?: number;
  /**
   * Connections open at once to one origin (scheme, host, port); requests beyond wait for one to be
   * free. Default 256: a busy receiver is served over warm keep-alive connections instead of a new
   * connection for every request in flight, and is never sent thousands of requests at once.
   */
  connectionsPerOrigin?: number;
  /** Hostname resolution; defaults to `dns.lookup` with `all: true`. Tests inject their own. */
  lookup?: ResolveAddresses;
}

/**
 * A webhook connection was refused because of where it would go. Carries the `code`
 * `ERR_WEBHOOK_FORBIDDEN_DESTINATION`; through `fetch` it arrives as the `cause` of a TypeError.
 * Safe to show to the customer: it names their own host and the address it resolved to.
 */
export class ForbiddenDestinationError extends Error {
  readonly code = 'ERR_WEBHOOK_FORBIDDEN_DESTINATION';

  constructor(
    readonly hostname: string,
    /** The refused address, or undefined when the protocol was refused. */
    readonly address: string | undefined,
    readonly reason: ForbiddenAddressReason | 'insecure_protocol',
  ) {
    super(
      reason === 'insecure_protocol'
        ? `Webhook destination ${hostname} refused: only https is allowed`
        : address === hostname
          ? `Webhook destination ${hostname} refused: ${reason.replace(/_/g, ' ')} address`
          : `Webhook destination ${hostname} refused: it resolves to ${address}, a ${reason.replace(/_/g, ' ')} address`,
    );
    this.name = 'ForbiddenDestinationError';
  }
}

export const DEFAULT_CONNECTIONS_PER_ORIGIN = 256;

/** dns.lookup of every address, in the resolver's order. */
export const resolveWithDnsLookup: ResolveAddresses = (hostname) => dns.lookup(hostname, { all: true });

/**
 * A `net.connect` `lookup` that resolves `hostname`, refuses the connection if ANY of its addresses
 * is forbidden, and otherwise hands exactly those addresses to the socket. Because the address that
 * was checked is the address that is connected to, a DNS answer that changes between validation and
 * delivery (rebinding) cannot slip through. Allow-listed hostnames skip the address check.
 */
export function createSafeLookup(
  policy: Pick<WebhookDestinationPolicy, 'allowPrivate' | 'allowList'>,
  resolve: ResolveAddresses = resolveWithDnsLookup,
): LookupFunction {
  const allowList = parseAllowList(policy.allowList);
  return (hostname, options, callback) => {
    resolveChecked(hostname, options.family, policy.allowPrivate, allowList, resolve).then(
      (addresses) => {
        if (options.all) callback(null, addresses);
        else callback(null, addresses[0]!.address, addresses[0]!.family);
      },
      (err: NodeJS.ErrnoException) => callback(err, ''),
    );
  };
}

async function resolveChecked(
  hostname: string,
  family: number | string | undefined,
  allowPrivate: boolean,
  allowList: ParsedAllowList,
  resolve: ResolveAddresses,
): Promise<LookupAddress[]> {
  const wanted = family === 4 || family === 'IPv4' ? 4 : family === 6 || family === 'IPv6' ? 6 : 0;
  const addresses = (await resolve(hostname)).filter((a) => wanted === 0 || a.family === wanted);
  if (addresses.length === 0) {
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname });
  }
  if (!isHostnameAllowListed(hostname, allowList)) {
    for (const { address } of addresses) {
      const reason = checkAddress(address, allowPrivate, allowList);
      if (reason !== false) throw new ForbiddenDestinationError(hostname, address, reason);
    }
  }
  return addresses.map(({ address, family: f }) => ({ address, family: f }));
}

/**
 * An undici dispatcher for webhook deliveries that only connects to destinations the policy allows:
 * hostnames are resolved and checked at connect time (every resolved address, see
 * `createSafeLookup`), IP literals are checked before connecting, and `http:` is refused unless
 * `allowHttp`. Keep-alive is on; each pooled connection was checked when it was opened.
 *
 * Pass it as `dispatcher` to undici's `request`/`fetch`, and do not follow redirects (the spec counts
 * a 3xx as a failure; a redirect followed through this dispatcher would still be checked).
 * Throws at construction if the allow-list is invalid.
 */
export function createSafeDispatcher(policy: WebhookDestinationPolicy, options: SafeDispatcherOptions = {}): Agent {
  const allowList = parseAllowList(policy.allowList);
  const timeout = options.connectTimeoutMs ?? 5_000;
  if (!Number.isInteger(timeout) || timeout <= 0) throw new RangeError('connectTimeoutMs must be a positive integer');
  const connections = options.connectionsPerOrigin ?? DEFAULT_CONNECTIONS_PER_ORIGIN;
  if (!Number.isInteger(connections) || connections <= 0) throw new RangeError('connectionsPerOrigin must be a positive integer');

  const connectChecked = buildConnector({ timeout, lookup: createSafeLookup(policy, options.lookup) });
  const connect: buildConnector.connector = (connectOptions, callback) => {
    const refusal = refuseBeforeConnect(connectOptions, policy, allowList);
    if (refusal) {
      // Asynchronously, as a real connection failure would be reported.
      process.nextTick(callback, refusal, null);
      return;
    }
    connectChecked(connectOptions, callback);
  };

  return new Agent({
    connect,
    keepAliveTimeout: options.keepAliveTimeoutMs ?? 4_000,
    keepAliveMaxTimeout: options.keepAliveMaxTimeoutMs ?? 60_000,
    connections,
  });
}

/** IP literals never reach `lookup` (net.connect skips it), so they are checked here. */
function refuseBeforeConnect(
  { protocol, hostname }: buildConnector.Options,
  policy: WebhookDestinationPolicy,
  allowList: ParsedAllowList,
): ForbiddenDestinationError | undefined {
  if (protocol !== 'https:' && !(protocol === 'http:' && policy.allowHttp)) {
    return new ForbiddenDestinationError(hostname, undefined, 'insecure_protocol');
  }
  // undici strips the brackets of an IPv6 literal before calling the connector; be tolerant anyway.
  const host = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  if (isIP(host) === 0) return undefined;
  const reason = checkAddress(host, policy.allowPrivate, allowList);
  return reason === false ? undefined : new ForbiddenDestinationError(host, host, reason);
}
