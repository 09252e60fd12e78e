/**
 * The methods each registered path answers, so that a request Fastify's router finds no route for
 * can be told apart: a path that exists with other methods is `405` with `Allow` (RFC 9110, 15.5.6),
 * anything else `404`. Fed by Fastify's `onRoute` hook; wildcard routes (the dashboard's pages, the
 * docs' assets) are left out: they answer GET for any path below them, which says nothing about
 * whether that path exists.
 */
export class RouteMethods {
  private readonly routes = new Map<string, { pattern: RegExp; methods: Set<string> }>();

  add(methods: string | string[], url: string): void {
    if (url.includes('*')) return;
    let route = this.routes.get(url);
    if (!route) {
      route = { pattern: patternOf(url), methods: new Set() };
      this.routes.set(url, route);
    }
    for (const method of Array.isArray(methods) ? methods : [methods]) route.methods.add(method.toUpperCase());
  }

  /** Every method some route answers on this path (no query string), sorted; empty when none does. */
  allowed(path: string): string[] {
    const methods = new Set<string>();
    for (const route of this.routes.values()) {
      if (route.pattern.test(path)) for (const method of route.methods) methods.add(method);
    }
    return [...methods].sort();
  }
}

/** `/api/v1/generations/:id/cancel` as a regular expression over a concrete path: a parameter is one non-empty segment. */
function patternOf(url: string): RegExp {
  const source = url
    .split(/(:[A-Za-z0-9_]+)/)
    .map((part) => (part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}$`);
}
