import { RouteMethods } from './route-methods';

describe('RouteMethods', () => {
  const routes = new RouteMethods();
  routes.add('POST', '/api/v1/generate');
  routes.add(['GET', 'HEAD'], '/api/v1/generations/:id');
  routes.add('POST', '/api/v1/generations/:id/cancel');
  routes.add('GET', '/api/v1/generations');
  routes.add('GET', '/dashboard/*');
  routes.add('GET', '/api/v1/openapi.json');

  it('lists the methods of the route a concrete path matches, sorted', () => {
    expect(routes.allowed('/api/v1/generate')).toEqual(['POST']);
    expect(routes.allowed('/api/v1/generations/0b2c')).toEqual(['GET', 'HEAD']);
    expect(routes.allowed('/api/v1/generations/0b2c/cancel')).toEqual(['POST']);
    expect(routes.allowed('/api/v1/generations')).toEqual(['GET']);
  });

  it('finds nothing for unknown paths, empty parameters, extra segments or a dot taken literally', () => {
    expect(routes.allowed('/api/v1/nope')).toEqual([]);
    expect(routes.allowed('/api/v1/generations//cancel')).toEqual([]);
    expect(routes.allowed('/api/v1/generate/x')).toEqual([]);
    expect(routes.allowed('/api/v1/openapiXjson')).toEqual([]);
  });

  it('ignores wildcard routes: they answer any path below them, so no path is known from them', () => {
    expect(routes.allowed('/dashboard/settings')).toEqual([]);
  });
});
