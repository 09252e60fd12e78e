import { isIP } from 'node:net';
import {
  ForbiddenAddressReason,
  WebhookDestinationPolicy,
  checkAddress,
  isHostnameAllowListed,
  ParsedAllowList,
  normaliseHostname,
  parseAllowList,
} from './ip-policy';

export const MAX_WEBHOOK_URL_LENGTH = 2048;

export type WebhookUrlValidation = { ok: true; url: URL } | { ok: false; reason: string };

const ADDRESS_KIND: Record<ForbiddenAddressReason, string> = {
  loopback: 'a loopback address',
  private: 'a private network address',
  link_local: 'a link-local address',
  carrier_grade_nat: 'a carrier-grade NAT address',
  unique_local: 'an IPv6 unique local address',
  site_local: 'an IPv6 site-local address',
  local_nat64: 'a local-use NAT64 address',
  cloud_metadata: 'a cloud metadata address',
  unspecified: 'an unspecified address',
  multicast: 'a multicast address',
  broadcast: 'a broadcast address',
  reserved: 'a reserved address',
  invalid: 'an invalid address',
};

/** A DNS host name after IDNA: letters, digits and inner hyphens per label, at most 253 characters. */
const HOST_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** The host exactly as the client wrote it (between `//` and the path, without user info and port). */
function hostAsWritten(url: string): string {
  const authority = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(url)?.[1] ?? '';
  const host = authority.slice(authority.lastIndexOf('@') + 1);
  if (host.startsWith('[')) return host.slice(0, host.indexOf(']') + 1);
  const colon = host.lastIndexOf(':');
  return colon >= 0 ? host.slice(0, colon) : host;
}

/**
 * The one check of a webhook URL, wherever one is accepted (a key's default URL in the dashboard,
 * `webhook_url` on a request) and again before each delivery. The `reason` of a refusal is a sentence
 * for the client (a 422 message). What is stored is the URL as parsed (`url.href`).
 *
 * The host must be written plainly: the URL parser would quietly turn a percent-encoded host, a
 * trailing dot or an IPv4 address in hex or octal into something else than what the client reads,
 * and two spellings of one destination would pass or fail different checks.
 *
 * A hostname is not resolved here: DNS can change between now and delivery (rebinding), so resolved
 * addresses are checked when the connection is made (see `createSafeDispatcher`). Only IP literals,
 * and `localhost` names, which always mean the local machine, are refused now.
 */
export function validateWebhookUrl(url: string, policy: WebhookDestinationPolicy): WebhookUrlValidation {
  if (typeof url !== 'string' || url.length === 0) return refuse('Webhook URL is required.');
  if (url.length > MAX_WEBHOOK_URL_LENGTH) {
    return refuse(`Webhook URL is too long: at most ${MAX_WEBHOOK_URL_LENGTH} characters.`);
  }
  // The URL parser silently strips surrounding spaces and removes tabs and newlines anywhere: refuse
  // them so that what is stored is what the client sent.
  if (hasSpaceOrControl(url)) return refuse('Webhook URL must not contain spaces or control characters.');

  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return refuse('Webhook URL must be an absolute URL, such as https://example.com/webhooks.');
  }
  if (parsed.protocol !== 'https:' && !(parsed.protocol === 'http:' && policy.allowHttp)) {
    return refuse('Webhook URL must use https.');
  }
  const port = parsed.port === '' ? (parsed.protocol === 'https:' ? 443 : 80) : Number(parsed.port);
  if (policy.ports && policy.ports.length > 0 && !policy.ports.includes(port)) {
    const allowed = policy.ports.join(', ');
    return refuse(`Webhook URL port ${port} is not allowed: this deployment delivers webhooks only to port${policy.ports.length > 1 ? 's' : ''} ${allowed}.`);
  }
  if (parsed.username !== '' || parsed.password !== '') {
    return refuse('Webhook URL must not contain a user name or password.');
  }
  if (parsed.href.length > MAX_WEBHOOK_URL_LENGTH) {
    return refuse(`Webhook URL is too long: at most ${MAX_WEBHOOK_URL_LENGTH} characters.`);
  }

  let allowList: ParsedAllowList;
  try {
    allowList = parseAllowList(policy.allowList);
  } catch {
    // A configuration error, not the client's: fail closed without exposing the configuration.
    return refuse('Webhook URLs cannot be accepted at the moment.');
  }

  const written = hostAsWritten(url);
  if (written.includes('%')) return refuse('Webhook URL host must not be percent-encoded: write the host name as it is.');

  // WHATWG parsing already turned every IPv4 spelling (0x7f.1, 2130706433, 0177.0.0.1) into dotted
  // decimal and IPv6 into its compressed form in brackets.
  const host = parsed.hostname;
  const literal = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (isIP(literal) !== 0) {
    const reason = checkAddress(literal, policy.allowPrivate, allowList);
    if (reason !== false) return refuse(`Webhook URL must not point to ${ADDRESS_KIND[reason]} (${literal}).`);
    if (isIP(literal) === 4 && written !== literal) {
      return refuse(`Webhook URL must write an IPv4 address in dotted decimal (${literal}).`);
    }
    return { ok: true, url: parsed };
  }

  const name = normaliseHostname(host);
  if (
    (name === 'localhost' || name.endsWith('.localhost')) &&
    !policy.allowPrivate &&
    !isHostnameAllowListed(name, allowList)
  ) {
    return refuse(`Webhook URL must not point to the local machine (${host}).`);
  }
  if (host.endsWith('.')) return refuse('Webhook URL host must not end with a dot.');
  if (host.length > 253 || !host.split('.').every((label) => HOST_LABEL.test(label))) {
    return refuse('Webhook URL host is not a valid host name (letters, digits and hyphens, separated by dots).');
  }
  return { ok: true, url: parsed };
}

function hasSpaceOrControl(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code <= 0x20 || code === 0x7f) return true;
  }
  return false;
}

function refuse(reason: string): WebhookUrlValidation {
  return { ok: false, reason };
}
