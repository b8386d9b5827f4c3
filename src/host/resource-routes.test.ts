import { describe, expect, it } from 'vitest';
import { ResourceRoutes } from './resource-routes.js';

describe('ResourceRoutes', () => {
  it('routes a URI to the one server that listed it, unrenamed', () => {
    const routes = new ResourceRoutes();
    routes.setServer('everything', ['demo://resource/static/document/architecture.md']);
    routes.setServer('fs', ['file:///tmp/a.txt', 'file:///tmp/b.txt']);
    expect(routes.route('file:///tmp/a.txt')).toBe('fs');
    expect(routes.route('demo://resource/static/document/architecture.md')).toBe('everything');
    expect(routes.route('file:///tmp/c.txt')).toBeUndefined();
    expect(routes.conflicts()).toEqual([]);
  });

  it('never guesses between two servers that list the same URI, and reports it', () => {
    const routes = new ResourceRoutes();
    routes.setServer('fs2', ['file:///etc/hosts']);
    routes.setServer('fs1', ['file:///etc/hosts', 'file:///etc/passwd']);
    expect(routes.route('file:///etc/hosts')).toBeUndefined();
    expect(routes.servers('file:///etc/hosts')).toEqual(['fs1', 'fs2']);
    expect(routes.conflicts()).toEqual([{ uri: 'file:///etc/hosts', servers: ['fs1', 'fs2'] }]);
    routes.deleteServer('fs2');
    expect(routes.route('file:///etc/hosts')).toBe('fs1');
    expect(routes.conflicts()).toEqual([]);
  });

  it('replaces a server’s list on update and forgets it on delete', () => {
    const routes = new ResourceRoutes();
    routes.setServer('s', ['a://1', 'a://2']);
    routes.setServer('s', ['a://2', 'a://3']);
    expect(['a://1', 'a://2', 'a://3'].map((uri) => routes.route(uri))).toEqual([
      undefined,
      's',
      's',
    ]);
    routes.deleteServer('s');
    routes.deleteServer('s');
    expect(routes.servers('a://2')).toEqual([]);
  });
});
