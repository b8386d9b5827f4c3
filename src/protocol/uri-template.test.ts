import { describe, expect, it } from 'vitest';
import { matchesUriTemplate } from './uri-template.js';

describe('matchesUriTemplate', () => {
  it.each([
    ['test://template/{id}/data', 'test://template/123/data', true],
    ['test://template/{id}/data', 'test://template/a%2Fb/data', true],
    ['test://template/{id}/data', 'test://template//data', false],
    ['test://template/{id}/data', 'test://template/1/2/data', false],
    ['test://template/{id}/data', 'test://template/123/data/more', false],
    ['fixture://colours/{name}', 'fixture://colours/red', true],
    ['fixture://colours/{name}', 'fixture://colours/', false],
    ['fixture://colours/{name}', 'fixture://colours/red?x=1', false],
    ['file:///{a}.{b}', 'file:///notes.txt', true],
    ['file:///{a}.{b}', 'file:///notestxt', false],
    ['plain://fixed', 'plain://fixed', true],
    ['plain://fixed', 'plain://fixedx', false],
    ['x://{+path}', 'x://a/b', false],
    ['x://{?q}', 'x://?q=1', false],
    ['x://{a,b}', 'x://1,2', false],
    ['x://{open', 'x://{open', false],
    ['x://close}', 'x://close}', false],
    ['a.b://{x}', 'aXb://1', false],
  ])('%s against %s: %s', (template, uri, expected) => {
    expect(matchesUriTemplate(template, uri)).toBe(expected);
  });
});
