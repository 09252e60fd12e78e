import { Rule } from '@gen/contracts';
import { ValidateBy } from 'class-validator';
import { isRecord } from '../../ports/engine-kind';

/**
 * The rules of binding settings as class-validator decorators (validated by `validateShape`) beside
 * the shared ones of `@gen/contracts` (`IntBetween`, `IfGiven`, `Rule`). Each message starts with the
 * property, so a problem reads `models[3].engine.baseUrl must use http or https`.
 */

/**
 * What is wrong with an http(s) URL without credentials, query or fragment (with `allowPath` a base
 * URL, else an origin); null when nothing is.
 */
export function urlProblem(value: unknown, allowPath: boolean): string | null {
  if (typeof value !== 'string' || value.trim() === '') return 'must be an http(s) URL';
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return 'must be an http(s) URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must use http or https';
  if (url.username || url.password) return 'must not carry credentials (name them in tokenEnv)';
  if (url.search || url.hash) return 'must not have a query or fragment';
  if (!allowPath && url.pathname !== '/') return 'must be an origin (scheme, host, port), without a path';
  return null;
}

/** A URL that passed `urlProblem`: the base URL (origin and path, no trailing slash), or the origin. */
export function normalUrl(value: string, allowPath: boolean): string {
  const url = new URL(value.trim());
  return allowPath ? `${url.origin}${url.pathname.replace(/\/+$/, '')}` : url.origin;
}

/** A base URL (`allowPath`) or an origin, as `urlProblem` says. */
export function HttpUrl(allowPath: boolean): PropertyDecorator {
  return ValidateBy({
    name: 'httpUrl',
    validator: {
      validate: (value: unknown) => urlProblem(value, allowPath) === null,
      defaultMessage: (args) => `$property ${urlProblem(args?.value, allowPath)}`,
    },
  });
}

const WILDCARD_ORIGIN = /^(https?:\/\/)\*\.([a-z0-9-]+(\.[a-z0-9-]+)+)(:\d{1,5})?$/i;

/** An origin, or `scheme://*.domain[:port]` for every subdomain of `domain`, normalised; null when it is neither. */
export function normalOrigin(entry: unknown): string | null {
  const wildcard = typeof entry === 'string' ? WILDCARD_ORIGIN.exec(entry.trim()) : null;
  if (wildcard) return `${wildcard[1].toLowerCase()}*.${wildcard[2].toLowerCase()}${wildcard[4] ?? ''}`;
  return urlProblem(entry, false) === null ? normalUrl(entry as string, false) : null;
}

/** An array of origins (`withWildcards`: also `https://*.cdn.example`); each bad item is its own problem. */
export function Origins(withWildcards: boolean): PropertyDecorator {
  const itemProblem = (entry: unknown) => (withWildcards && normalOrigin(entry) !== null ? null : urlProblem(entry, false));
  return ValidateBy({
    name: 'origins',
    validator: {
      validate: (value: unknown) => Array.isArray(value) && value.every((entry) => itemProblem(entry) === null),
      defaultMessage: (args) =>
        Array.isArray(args?.value)
          ? (args.value as unknown[]).flatMap((entry, i) => (itemProblem(entry) === null ? [] : [`$property[${i}] ${itemProblem(entry)}`])).join('\n')
          : '$property must be an array of origins',
    },
  });
}

/** A plain object (not an array, not null), else `message`. */
export const IsPlainObject = (message: string): PropertyDecorator => Rule('isPlainObject', isRecord, message);
