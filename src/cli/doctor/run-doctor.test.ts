import { describe, expect, it } from 'vitest';
import { readConfigText } from '../../config/read-config-text.js';
import { runDoctor } from './run-doctor.js';

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
    // The report names the server beside the finding: the problem does not repeat it.
    expect(asks!.problem).toMatch(
      /^\/project\/mcp\.yaml:\d+:\d+: servers\.asks\.headers\.Authorization: input 'token'/,
    );
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
});
