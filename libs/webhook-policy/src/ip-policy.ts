import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

type IPv4 = ipaddr.IPv4;
type IPv6 = ipaddr.IPv6;
type Cidr = [IPv4 | IPv6, number];

/** Which webhook destinations a deployment accepts. */
export interface WebhookDestinationPolicy {
  /** Accept `http:` URLs (local development and tests). Production: false, https only. */
  allowHttp: boolean;
  /**
   * Accept loopback, private (RFC 1918), link-local, CGNAT, IPv6 unique-local and site-local
   * destinations (local development and tests). Production: false.
   */
  allowPrivate: boolean;
  /**
   * Always-accepted destinations: CIDRs (`10.1.2.0/24`, `fd00::/8`), single addresses (`127.0.0.1`),
   * hostnames (`hooks.internal.example`) or hostname wildcards (`*.internal.example`, subdomains
   * only). A matching address or hostname bypasses every other address check.
   */
  allowList: readonly string[];
  /**
   * The ports a webhook URL may use (its explicit port, else 443 for https and 80 for http); empty or
   * absent: any. In Kubernetes these are the ports the egress NetworkPolicy opens to the internet
   * (k8s/: both come from one setting, and tools/ops/check-k8s.mjs checks they agree), so a URL the
   * policy would time out on is refused at submit instead.
   */
  ports?: readonly number[];
}

export type AddressPolicy = Pick<WebhookDestinationPolicy, 'allowPrivate' | 'allowList'>;

/**
 * Why an address is refused. The first group is accepted when `allowPrivate` is set; the second is
 * refused whatever `allowPrivate` says (only an explicit allow-list entry accepts it).
 */
export type ForbiddenAddressReason =
  | 'loopback'
  | 'private'
  | 'link_local'
  | 'carrier_grade_nat'
  | 'unique_local'
  | 'site_local'
  | 'local_nat64'
  | 'cloud_metadata'
  | 'unspecified'
  | 'multicast'
  | 'broadcast'
  | 'reserved'
  | 'invalid';

const ALLOWED_BY_ALLOW_PRIVATE: ReadonlySet<ForbiddenAddressReason> = new Set<ForbiddenAddressReason>([
  'loopback',
  'private',
  'link_local',
  'carrier_grade_nat',
  'unique_local',
  'site_local',
  'local_nat64',
]);

/**
 * Instance-metadata endpoints of the major clouds (AWS IMDS v4/v6, ECS task credentials, EKS pod
 * identity, Alibaba Cloud). They sit inside link-local/ULA/CGNAT space but hand out credentials, so
 * `allowPrivate` (a convenience for local receivers) does not open them; only an explicit
 * allow-list CIDR does.
 */
const CLOUD_METADATA: ReadonlySet<string> = new Set(
  ['169.254.169.254', '169.254.170.2', '169.254.170.23', '100.100.100.200', 'fd00:ec2::254', 'fd00:ec2::23'].map(
    (address) => ipaddr.parse(address).toNormalizedString(),
  ),
);

export interface ParsedAllowList {
  cidrs: readonly Cidr[];
  /** Lower-case, without trailing dot. */
  hostnames: ReadonlySet<string>;
  /** Suffixes of `*.` entries, with their leading dot: `.internal.example`. */
  suffixes: readonly string[];
}

const HOSTNAME = /^(?=.{1,253}$)([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*$/;

/**
 * Parses allow-list entries; throws on an entry that is neither a CIDR, an address nor a hostname,
 * so that configuration validation at start-up can report it.
 */
export function parseAllowList(entries: readonly string[]): ParsedAllowList {
  const cidrs: Cidr[] = [];
  const hostnames = new Set<string>();
  const suffixes: string[] = [];
  for (const raw of entries) {
    const entry = raw.trim();
    const slash = entry.indexOf('/');
    if (slash >= 0) {
      const bits = entry.slice(slash + 1);
      if (isIP(entry.slice(0, slash)) === 0 || !/^[0-9]{1,3}$/.test(bits) || !ipaddr.isValidCIDR(entry)) {
        throw new Error(`Invalid webhook allow-list entry "${raw}": not a CIDR`);
      }
      cidrs.push([parseExact(entry.slice(0, slash)), Number(bits)]);
    } else if (isIP(entry) !== 0) {
      const address = parseExact(entry);
      cidrs.push([address, address.kind() === 'ipv4' ? 32 : 128]);
    } else {
      const name = normaliseHostname(entry);
      const wildcard = name.startsWith('*.');
      if (!HOSTNAME.test(wildcard ? name.slice(2) : name)) {
        throw new Error(`Invalid webhook allow-list entry "${raw}": not a CIDR, an IP address or a hostname`);
      }
      if (wildcard) suffixes.push(name.slice(1));
      else hostnames.add(name);
    }
  }
  return { cidrs, hostnames, suffixes };
}

/** Lower case, without the trailing dot of a fully-qualified name. */
export function normaliseHostname(hostname: string): string {
  const lower = hostname.toLowerCase();
  return lower.endsWith('.') ? lower.slice(0, -1) : lower;
}

/** Whether `hostname` is listed by name (exactly, or under a `*.` wildcard). */
export function isHostnameAllowListed(hostname: string, allowList: ParsedAllowList): boolean {
  const name = normaliseHostname(hostname);
  return allowList.hostnames.has(name) || allowList.suffixes.some((suffix) => name.endsWith(suffix));
}

/**
 * `false` if a webhook may be delivered to `ip`, otherwise the reason it may not.
 *
 * Refused unless allow-listed by CIDR, or (for the "private" kinds) `allowPrivate` is set: IPv4
 * loopback 127/8, private 10/8 172.16/12 192.168/16, link-local 169.254/16, CGNAT 100.64/10,
 * 0/8, multicast 224/4, broadcast, reserved 240/4 and the other special-purpose blocks; IPv6 `::`,
 * `::1`, link-local fe80::/10, ULA fc00::/7, site-local fec0::/10, multicast ff00::/8 and every
 * block outside global unicast 2000::/3. Addresses that embed an IPv4 address (IPv4-mapped
 * `::ffff:a.b.c.d` in any notation, IPv4-translated, NAT64 64:ff9b::/96, 6to4 2002::/16, Teredo) are
 * judged by the IPv4 address they reach. Cloud metadata addresses are refused even with
 * `allowPrivate`. Anything that is not a plain IP address (`127.1`, `0x7f.0.0.1`, `[::1]`) is `invalid`.
 */
export function isForbiddenAddress(ip: string, policy: AddressPolicy): false | ForbiddenAddressReason {
  return checkAddress(ip, policy.allowPrivate, parseAllowList(policy.allowList));
}

/** `isForbiddenAddress` with an allow-list parsed once (for the connect-time hot path). */
export function checkAddress(ip: string, allowPrivate: boolean, allowList: ParsedAllowList): false | ForbiddenAddressReason {
  if (typeof ip !== 'string' || isIP(ip) === 0) return 'invalid';
  const address = parseExact(ip);
  if (isCidrAllowListed(address, allowList)) return false;
  const reason = classify(address);
  if (reason === false) return false;
  return allowPrivate && ALLOWED_BY_ALLOW_PRIVATE.has(reason) ? false : reason;
}

/**
 * ipaddr.parse, except for IPv6 with a dotted IPv4 tail: ipaddr.js rewrites the deprecated
 * IPv4-compatible `::a.b.c.d` into the IPv4-mapped `::ffff:a.b.c.d`, which is another address. Writing
 * the tail as two hex groups first keeps the bits exactly as they are on the wire.
 */
function parseExact(ip: string): IPv4 | IPv6 {
  const [addr = '', zone] = ip.split('%', 2);
  const dotted = /^(.*:)(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(addr);
  if (!dotted) return ipaddr.parse(ip);
  const [a, b, c, d] = dotted.slice(2).map(Number) as [number, number, number, number];
  const hex = `${dotted[1]}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  return ipaddr.parse(zone === undefined ? hex : `${hex}%${zone}`);
}

function isCidrAllowListed(address: IPv4 | IPv6, allowList: ParsedAllowList): boolean {
  // An IPv4-mapped address is the IPv4 address on the wire: `127.0.0.1/32` also lists ::ffff:127.0.0.1.
  const candidates: Array<IPv4 | IPv6> = [address];
  if (address.kind() === 'ipv6' && (address as IPv6).isIPv4MappedAddress()) {
    candidates.push((address as IPv6).toIPv4Address());
  }
  return allowList.cidrs.some(([range, bits]) =>
    candidates.some((candidate) => candidate.kind() === range.kind() && candidate.match(range, bits)),
  );
}

/** `false` for a public unicast address, otherwise what it is. */
function classify(address: IPv4 | IPv6): false | ForbiddenAddressReason {
  if (isCloudMetadata(address)) return 'cloud_metadata';
  return address.kind() === 'ipv4' ? classifyIPv4(address as IPv4) : classifyIPv6(address as IPv6);
}

function isCloudMetadata(address: IPv4 | IPv6): boolean {
  // Normalised IPv4 (dotted) and IPv6 (eight groups) strings cannot collide.
  return CLOUD_METADATA.has(address.toNormalizedString());
}

function classifyIPv4(address: IPv4): false | ForbiddenAddressReason {
  const range = address.range();
  switch (range) {
    case 'unicast':
      return false;
    case 'loopback':
      return 'loopback';
    case 'private':
      return 'private';
    case 'linkLocal':
      return 'link_local';
    case 'carrierGradeNat':
      return 'carrier_grade_nat';
    case 'unspecified':
      return 'unspecified';
    case 'broadcast':
      return 'broadcast';
    case 'multicast':
      return 'multicast';
    default:
      // 'reserved' (240/4, 192.0.0/24, documentation and benchmarking blocks), 'as112', 'amt', and
      // any range a later ipaddr.js adds: never a webhook receiver.
      return 'reserved';
  }
}

const GLOBAL_UNICAST: Cidr = ipaddr.parseCIDR('2000::/3');

function classifyIPv6(address: IPv6): false | ForbiddenAddressReason {
  const embedded = embeddedIPv4(address);
  if (embedded === 'local_nat64') return 'local_nat64';
  if (embedded) {
    // Judge by the IPv4 destinations the address leads to; refuse if any of them is refused.
    for (const ipv4 of embedded) {
      const reason = classify(ipv4);
      if (reason !== false) return reason;
    }
    return false;
  }
  // ipaddr.js 2.5 returns range names its type declarations do not list ('deprecatedSiteLocal').
  const range: string = address.range();
  switch (range) {
    case 'unspecified':
      return 'unspecified';
    case 'loopback':
      return 'loopback';
    case 'linkLocal':
      return 'link_local';
    case 'uniqueLocal':
      return 'unique_local';
    case 'deprecatedSiteLocal':
      return 'site_local';
    case 'multicast':
      return 'multicast';
    case 'unicast':
      // ipaddr.js calls everything it has no name for "unicast", including the deprecated
      // IPv4-compatible ::a.b.c.d block and unassigned space: only 2000::/3 is global unicast.
      return address.match(GLOBAL_UNICAST) ? false : 'reserved';
    default:
      return 'reserved';
  }
}

/**
 * The IPv4 addresses an IPv6 address leads to, for the forms that embed one; `undefined` if it
 * embeds none; 'local_nat64' for the local-use NAT64 prefix 64:ff9b:1::/48, whose embedding depends
 * on the site's prefix length.
 */
function embeddedIPv4(address: IPv6): IPv4[] | 'local_nat64' | undefined {
  const p = address.parts;
  const v4 = (hi: number, lo: number): IPv4 => new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
  const range: string = address.range();
  switch (range) {
    case 'ipv4Mapped': // ::ffff:a.b.c.d, whatever its notation (::ffff:7f00:1)
    case 'rfc6145': // ::ffff:0:a.b.c.d, IPv4-translated
      return [v4(p[6]!, p[7]!)];
    case 'rfc6052': // 64:ff9b::a.b.c.d well-known NAT64 prefix (/96), or the local-use /48
      return p[2] === 0 ? [v4(p[6]!, p[7]!)] : 'local_nat64';
    case '6to4': // 2002:AABB:CCDD::/48
      return [v4(p[1]!, p[2]!)];
    case 'teredo': // 2001:0:<server v4>:<flags>:<port ^ 0xffff>:<client v4 ^ 0xffffffff>
      return [v4(p[2]!, p[3]!), v4(p[6]! ^ 0xffff, p[7]! ^ 0xffff)];
    default:
      return undefined;
  }
}
