import { describe, expect, it } from 'vitest';
import { dialects, foreignDialects } from '../config/dialects/registry.js';
import { importDialects, printDialects } from './dialect-choices.js';

describe('dialect choices', () => {
  it('are the registry’s dialects, in its order', () => {
    expect(importDialects).toEqual(Object.keys(foreignDialects));
    expect(printDialects).toEqual(Object.keys(dialects));
  });
});
