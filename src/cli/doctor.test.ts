import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readConfigText } from '../config/load.js';
import { DOCTOR_EXIT_CODES, doctorStatuses, renderDoctor } from './doctor-report.js';
import { findCommand } from './find-command.js';
import { runDoctor } from './doctor.js';

function load(text: string) {
  return readConfigText(text, '/project/mcp.yaml', { dialect: 'mcp-host' });
}

describe('runDoctor without spawning', () => {
  it('reports a server the loader left out as config-invalid, with its place (exit 1)', async () => {
    const { config, diagnostics } = load(
      'servers:\n  bad:\n    command: npx\n    timeouts: { connectMs: -5 }\n  off:\n    command: x\n    enabled: false\n',
    );
    const report = await runDoctor(config, { diagnostics, env: {} });
    expect(report.servers.map((f) => [f.server, f.status])).toEqual([
      ['off', 'disabled'],
      ['bad', 'config-invalid'],
    ]);
    expect(report.servers[1]!.problem).toContain('/project/mcp.yaml:4:28');
    expect(report.exitCode).toBe(1);
  });

  it('an input nobody can give is input-required (exit 3); unset variables are all named', async () => {
    const { config } = load(
      [
        'servers:',
        '  asks:',
        '    url: https://mcp.example.com/mcp',
        '    headers: { Authorization: "Bearer ${input:token}" }',
        '  unset:',
        '    command: node',
        '    env: { A: "${MISSING_A}", B: "${MISSING_B}" }',
        'inputs:',
        '  - { id: token, type: promptString, password: true }',
        '',
      ].join('\n'),
    );
    const report = await runDoctor(config, { env: {} });
    const [asks, unset] = report.servers;
    expect(asks).toMatchObject({ status: 'input-required', transport: 'http' });
    expect(asks!.fix).toContain('MCP_HOST_INPUTS');
    expect(unset).toMatchObject({
      status: 'variable-unset',
      variables: ['MISSING_A', 'MISSING_B'],
    });
    expect(report.exitCode).toBe(3);
  });

  it('only checks the servers named', async () => {
    const { config } = load(
      'servers:\n  a:\n    command: x\n    enabled: false\n  b:\n    command: y\n    enabled: false\n',
    );
    const report = await runDoctor(config, { only: ['b'], env: {} });
    expect(report.servers.map((f) => f.server)).toEqual(['b']);
    expect(report.exitCode).toBe(0);
  });

  it('maps every status to an exit code', () => {
    for (const status of doctorStatuses) expect([0, 1, 3, 4]).toContain(DOCTOR_EXIT_CODES[status]);
  });
});

describe('findCommand', () => {
  it('searches PATH for a bare name, checks a path as given, wants the execute bit', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-host-doctor-'));
    try {
      const tool = join(dir, 'my-server');
      writeFileSync(tool, '#!/bin/sh\n');
      chmodSync(tool, 0o755);
      const plain = join(dir, 'not-executable');
      writeFileSync(plain, '');
      chmodSync(plain, 0o644);
      expect(await findCommand('my-server', { PATH: dir })).toBe(true);
      expect(await findCommand('my-server', { PATH: '/nonexistent' })).toBe(false);
      expect(await findCommand(tool, {})).toBe(true);
      // No execute bit: not runnable (root included: access(X_OK) wants one bit set).
      if (process.platform !== 'win32') {
        expect(await findCommand(plain, {})).toBe(false);
        expect(await findCommand('not-executable', { PATH: dir })).toBe(false);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('renderDoctor', () => {
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
