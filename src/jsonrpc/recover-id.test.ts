import { describe, expect, it } from 'vitest';
import { recoverBrokenResponseId, recoverRequestId } from './recover-id.js';

const filler = 'x'.repeat(50);

describe('recoverRequestId', () => {
  it.each([
    ['{"jsonrpc":"2.0","id":42,"result":{"text":"', 42],
    ['{"id":42,"jsonrpc":"2.0","result":', 42],
    ['  { "jsonrpc" : "2.0" , "id" : -3 , "result"', -3],
    ['{"jsonrpc":"2.0","id":"abc-1","result":', 'abc-1'],
    ['{"jsonrpc":"2.0","id":"with \\"quotes\\" and \\\\","error":', 'with "quotes" and \\'],
    ['{"id":7}', 7],
  ])('finds the id as the first key of the head: %s', (head, id) => {
    expect(recoverRequestId(head, filler)).toBe(id);
  });

  it.each([
    [`${filler}"},"id":42}`, 42],
    [`${filler}"}, "id" : 42 }  \t`, 42],
    [`${filler}"},"id":42,"jsonrpc":"2.0"}`, 42],
    [`${filler}"},"id":"r-9"}`, 'r-9'],
    [`${filler}]}},"id":-1}`, -1],
  ])('finds the id as the last key of the tail: %s', (tail, id) => {
    expect(recoverRequestId(`{"jsonrpc":"2.0","result":{"text":"${filler}`, tail)).toBe(id);
  });

  it('prefers the head when both forms are present', () => {
    expect(recoverRequestId('{"id":1,"result":"', `${filler}","id":2}`)).toBe(1);
  });

  it.each([
    // head: the first key is not "id", so an "id" after it may be nested
    ['{"jsonrpc":"2.0","result":{"id":5,"text":"', `${filler}"}}`],
    ['{"result":{"id":5},"jsonrpc":"2.0","text":"', `${filler}"}`],
    // tail: an "id" closed by more than the top-level brace is nested
    [`{"jsonrpc":"2.0","result":{"text":"`, `${filler}","item":{"id":9}}`],
    [`{"jsonrpc":"2.0","result":{"text":"`, `${filler}","items":[{"id":9}]}}`],
    [`{"jsonrpc":"2.0","result":{"text":"`, `${filler}","last":{"id":9} }`],
    // an "id" inside a string is escaped, so never matches
    [`{"jsonrpc":"2.0","result":{"text":"`, `${filler},\\"id\\":9}"}`],
    [`{"jsonrpc":"2.0","result":{"text":"`, `${filler}{\\"id\\":9}"}`],
  ])('never takes a nested id for the top-level one: %s … %s', (head, tail) => {
    expect(recoverRequestId(head, tail)).toBeUndefined();
  });

  it.each([
    [
      '{"jsonrpc":"2.0","id":5,"method":"sampling/createMessage","params":{"messages":[',
      `${filler}"}]}}`,
    ],
    [
      '{"jsonrpc":"2.0","method":"sampling/createMessage","params":{"text":"',
      `${filler}"},"id":5}`,
    ],
    ['{"id":5,"jsonrpc":"2.0","params":{"text":"', `${filler}"},"method":"x"}`],
    ['{"params":{"text":"', `${filler}"},"method":"elicitation/create","id":5,"jsonrpc":"2.0"}`],
    ['{"id":"s-5","params":{"text":"', `${filler}"},"method":"x"}`],
  ])(
    'never takes the id of a request from the other side for one of ours: %s … %s',
    (head, tail) => {
      expect(recoverRequestId(head, tail)).toBeUndefined();
    },
  );

  it.each([
    ['{"jsonrpc":"2.0","id":5,"result":{"method":"x","params":{"text":"', `${filler}"}}}`, 5],
    ['{"jsonrpc":"2.0","result":{"method":"x","params":{"text":"', `${filler}"}}},"id":6}`, 6],
    ['{"jsonrpc":"2.0","result":{"text":"', `${filler}","last":{"method":"x"}},"id":7}`, 7],
  ])(
    'still finds the id of a response whose result holds method or params keys: %s',
    (head, tail, id) => {
      expect(recoverRequestId(head, tail)).toBe(id);
    },
  );

  it.each([
    ['{"jsonrpc":"2.0","id":null,"error":', filler],
    ['{"jsonrpc":"2.0","id":1.5,"result":', filler],
    ['{"jsonrpc":"2.0","id":true,"result":', filler],
    ['{"jsonrpc":"2.0","id":{"a":1},"result":', filler],
    ['{"jsonrpc":"2.0","id":1234567890123456,"result":', filler],
    [`{"jsonrpc":"2.0","id":"${'a'.repeat(300)}","result":`, filler],
    ['[{"jsonrpc":"2.0","id":1,"result":', `${filler}"}]`],
    ['', ''],
    ['not json at all', 'still not json'],
  ])('returns undefined when no usable id is there: %s', (head, tail) => {
    expect(recoverRequestId(head, tail)).toBeUndefined();
  });

  it('stays fast on hostile input', () => {
    const started = performance.now();
    const hostile = `{"id":"${'\\'.repeat(1024)}`;
    recoverRequestId(hostile, hostile);
    recoverRequestId('{'.repeat(1024), ',"id":'.repeat(170));
    recoverRequestId(`{${'"a":1,'.repeat(170)}`, `${',"method":"x"'.repeat(80)}`);
    recoverRequestId(`{${'"aaaa":"'.repeat(120)}`, `${'"x":"\\",'.repeat(100)}}`);
    expect(performance.now() - started).toBeLessThan(500);
  });
});

describe('recoverBrokenResponseId', () => {
  const long = 'y'.repeat(5000);

  it.each([
    ['cut short', '{"jsonrpc":"2.0","id":42,"result":{"content":[{"type":"te', 42],
    ['cut short, error', '{"id":"r-1","jsonrpc":"2.0","error":{"code":-32603,"mess', 'r-1'],
    ['cut short, no jsonrpc', '{"id":7,"result":{"text":"', 7],
    ['cut short after 5000 characters', `{"jsonrpc":"2.0","id":8,"result":{"text":"${long}`, 8],
    // complete but corrupted inside (a raw tab in a string), in the official SDKs' key order
    ['corrupted, SDK order', '{"result":{"content":[{"text":"a\tb"}]},"jsonrpc":"2.0","id":9}', 9],
    ['corrupted, long', `{"result":{"text":"${long}\t"},"id":10,"jsonrpc":"2.0"}\r`, 10],
    [
      'corrupted error',
      '{"error":{"code":-1,"message":"x\u0001"},"jsonrpc":"2.0","id":"e-2"}',
      'e-2',
    ],
  ])('finds the id of a broken response: %s', (_label, line, id) => {
    expect(() => JSON.parse(line) as unknown).toThrow();
    expect(recoverBrokenResponseId(line)).toBe(id);
  });

  it.each([
    // no id in view, or an id not followed by result or error
    ['{"jsonrpc":"2.0","result":{"content":[{"type":"te'],
    ['{"jsonrpc":"2.0","id":5'],
    ['{"jsonrpc":"2.0","id":5,"me'],
    // a request or notification of the other side, whole or cut
    ['{"jsonrpc":"2.0","id":5,"method":"sampling/createMessage","params":{"mes'],
    ['{"method":"x","params":{"t":"a\tb"},"jsonrpc":"2.0","id":5}'],
    // a cut line whose end looks like a nested object with an id
    ['{"jsonrpc":"2.0","result":{"items":[{"id":3}'],
    ['{"result":{"items":[{"name":"a","id":3}'],
    // the tail id without "jsonrpc" beside it, or after a head that is not a response's
    ['{"result":{"text":"a\tb"},"id":4}'],
    ['{"data":{"text":"a\tb"},"jsonrpc":"2.0","id":4}'],
    ['[{"jsonrpc":"2.0","id":1,"result":'],
    ['not json at all'],
    [''],
  ])('finds nothing where the line does not show a response id beyond doubt: %s', (line) => {
    expect(recoverBrokenResponseId(line)).toBeUndefined();
  });

  it('stays fast on hostile input', () => {
    const started = performance.now();
    recoverBrokenResponseId(`{"id":"${'\\'.repeat(5000)}`);
    recoverBrokenResponseId(`{${'"a":1,'.repeat(2000)}`);
    recoverBrokenResponseId(`{"result":${',"jsonrpc":"2.0","id":'.repeat(500)}`);
    expect(performance.now() - started).toBeLessThan(500);
  });
});
