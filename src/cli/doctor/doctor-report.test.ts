import { describe, expect, it } from 'vitest';
import { DOCTOR_EXIT_CODES, doctorStatuses, renderDoctor } from './doctor-report.js';

describe('the doctor report', () => {
  it('maps every status to an exit code', () => {
    for (const status of doctorStatuses) expect([0, 1, 3, 4]).toContain(DOCTOR_EXIT_CODES[status]);
  });

  it('one line per server, then the problem, stderr, fix and place', () => {
    const text = renderDoctor({
      servers: [
        {
          server: 'ok',
          status: 'ok',
          transport: 'stdio',
          era: 'legacy',
          toolCount: 3,
          auth: 'n/a',
          durationMs: 12,
        },
        {
          server: 'crashy',
          status: 'crashed',
          transport: 'stdio',
          problem: 'exited on start with code 1 before answering the handshake',
          stderrTail: 'boom\nToken <masked>',
          fix: 'read its stderr above',
          source: 'mcp.yaml:3:3',
          durationMs: 40,
        },
      ],
      diagnostics: [],
      exitCode: 4,
    });
    expect(text.split('\n')).toEqual([
      '✓ ok      ok                 legacy, 3 tools, 12 ms',
      '✗ crashy  crashed            exited on start with code 1 before answering the handshake',
      '    stderr:',
      '    | boom',
      '    | Token <masked>',
      '    fix: read its stderr above',
      '    at mcp.yaml:3:3',
      '',
      '1 of 2 servers with a problem',
    ]);
  });
});
