/**
 * The files of deploy/, checked statically (a container runtime and a Kubernetes cluster are not
 * available here): HAProxy accepts deploy/haproxy.cfg (`haproxy -c`, installed when missing and
 * root), as shipped and as the replica test renders it, and it holds the rules docs/deploy.md
 * explains; the Kubernetes objects parse and refer to each other consistently (labels and
 * selectors, probe paths and ports, Secrets and their keys, the config's mount, the token's path);
 * the Containerfile's command names flags the built CLI has and files the package holds, and
 * agrees with the Deployment and HAProxy on the port and the health path.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments, parse as parseYaml } from 'yaml';
import { checkHaproxyConfig, haproxyConfigPath, renderHaproxyConfig } from '../helpers/haproxy.js';
import { cliEnv, cliPath, ensureBuiltCli, repoRoot, runCli } from '../helpers/run-built-cli.js';
import { tempDir } from '../helpers/scratch.js';

const deploy = join(repoRoot, 'deploy');
const haproxyText = readFileSync(haproxyConfigPath, 'utf8');

/** The lines of one section (`backend gateways`) of an HAProxy config, trimmed, no comments. */
function section(name: string): string[] {
  const lines: string[] = [];
  let inside = false;
  for (const line of haproxyText.split('\n')) {
    if (/^\S/.test(line)) inside = line.trim() === name;
    else if (inside && line.trim() !== '' && !line.trim().startsWith('#'))
      lines.push(line.trim().replace(/\s+/g, ' '));
  }
  return lines;
}

/** HAProxy durations (`1h`, `30s`, `500ms`, bare ms) in ms. */
function durationMs(value: string): number {
  const match = /^(\d+)(ms|s|m|h|d)?$/.exec(value);
  if (match === null) throw new Error(`not a duration: ${value}`);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[match[2] ?? 'ms']!;
  return Number(match[1]) * unit;
}

describe('deploy/haproxy.cfg', () => {
  it('is accepted by `haproxy -c`, as shipped and as rendered for other replicas', () => {
    const shipped = checkHaproxyConfig(haproxyConfigPath);
    expect(shipped.ok, shipped.output).toBe(true);
    using dir = tempDir();
    const rendered = join(dir.path, 'haproxy.cfg');
    writeFileSync(
      rendered,
      renderHaproxyConfig(haproxyText, {
        bind: '127.0.0.1:18808',
        statsBind: '127.0.0.1:18404',
        servers: [1, 2, 3, 4, 5].map((n) => ({ name: `r${n}`, address: `127.0.0.1:1880${n}` })),
      }),
    );
    const check = checkHaproxyConfig(rendered);
    expect(check.ok, check.output).toBe(true);
    expect(readFileSync(rendered, 'utf8')).toContain('server r5 127.0.0.1:18805');
  });

  it('checks /healthz, sticks legacy sessions by Mcp-Session-Id, balances the rest round-robin', () => {
    const backend = section('backend gateways');
    expect(backend).toContain('balance roundrobin');
    expect(backend).toContain('option httpchk GET /healthz');
    expect(backend).toContain('http-check expect status 200');
    // Learned from the response of `initialize`, matched on the requests after.
    expect(backend).toContain('stick store-response res.hdr(mcp-session-id)');
    expect(backend).toContain('stick match req.hdr(mcp-session-id)');
    const table = backend.find((line) => line.startsWith('stick-table '))!;
    expect(table).toMatch(/type string len (\d+)/);
    // A session id of the gateway (192 bits, base64url: 32 characters) fits the key.
    expect(Number(/len (\d+)/.exec(table)![1])).toBeGreaterThanOrEqual(48);
    // Entries outlive the gateway's idle session timeout (30 minutes by default).
    expect(durationMs(/expire (\S+)/.exec(table)![1]!)).toBeGreaterThan(30 * 60_000);
    expect(backend.filter((line) => line.startsWith('server ')).length).toBeGreaterThan(1);
    expect(
      backend.some((line) => line.startsWith('default-server ') && / check\b/.test(line)),
    ).toBe(true);
  });

  it('retries only requests that never reached a replica, and lets SSE streams stay quiet', () => {
    const defaults = section('defaults');
    // `conn-failure` alone: a POST a replica may have run is never sent twice.
    const retryOn = defaults.filter((line) => line.startsWith('retry-on '));
    expect(retryOn).toEqual(['retry-on conn-failure']);
    expect(defaults).toContain('option redispatch 1');
    expect(haproxyText).not.toMatch(/^\s*(option\s+)?(http-request\s+)?(retry|replay)[^\n]*5xx/m);
    const timeout = (name: string) =>
      durationMs(defaults.find((line) => line.startsWith(`timeout ${name} `))!.split(' ')[2]!);
    for (const name of ['client', 'server', 'tunnel'])
      expect(timeout(name), name).toBeGreaterThanOrEqual(3_600_000);
    expect(defaults).toContain('mode http');
    expect(section('frontend mcp').some((line) => line.startsWith('bind '))).toBe(true);
  });
});

/** A Kubernetes object, loosely typed. */
type K8sObject = {
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  [key: string]: unknown;
};
/* eslint-disable @typescript-eslint/no-explicit-any -- walking parsed YAML */
type Any = any;

function kubernetesObjects(): K8sObject[] {
  const dir = join(deploy, 'kubernetes');
  const objects: K8sObject[] = [];
  for (const file of readdirSync(dir)
    .filter((name) => name.endsWith('.yaml'))
    .sort()) {
    for (const document of parseAllDocuments(readFileSync(join(dir, file), 'utf8'))) {
      expect(document.errors, file).toEqual([]);
      objects.push(document.toJS() as K8sObject);
    }
  }
  return objects;
}

const one = (objects: K8sObject[], kind: string, name?: string): Any => {
  const found = objects.filter(
    (object) => object.kind === kind && (name === undefined || object.metadata.name === name),
  );
  expect(found.length, `${kind} ${name ?? ''}`).toBe(1);
  return found[0];
};

/** Whether every label of `selector` is on `labels`. */
const selects = (selector: Record<string, string>, labels: Record<string, string>): boolean =>
  Object.keys(selector).length > 0 &&
  Object.entries(selector).every(([key, value]) => labels[key] === value);

/** The value of `--flag` in an argument list. */
const flag = (args: readonly string[], name: string): string | undefined => {
  const at = args.indexOf(name);
  return at === -1 ? undefined : args[at + 1];
};

describe('deploy/kubernetes', () => {
  const objects = kubernetesObjects();
  const deployment = one(objects, 'Deployment');
  const pod = deployment.spec.template.spec;
  const labels = deployment.spec.template.metadata.labels as Record<string, string>;
  const gateway = pod.containers.find((c: Any) => c.name === 'gateway');
  const args = gateway.args as string[];
  const mountOf = (container: Any, volume: string): string =>
    container.volumeMounts.find((m: Any) => m.name === volume).mountPath as string;
  const volume = (name: string): Any => pod.volumes.find((v: Any) => v.name === name);

  it('parses, and the Deployment and Services select the same pods', () => {
    expect(objects.map((o) => o.kind).sort()).toEqual([
      'ConfigMap',
      'Deployment',
      'Secret',
      'Secret',
      'Service',
      'Service',
    ]);
    expect(selects(deployment.spec.selector.matchLabels, labels)).toBe(true);
    for (const service of objects.filter((o) => o.kind === 'Service')) {
      const spec = service.spec as Any;
      expect(selects(spec.selector, labels), service.metadata.name).toBe(true);
      for (const port of spec.ports)
        expect(
          gateway.ports.some((p: Any) => p.name === port.targetPort),
          `${service.metadata.name} targets port ${port.targetPort}`,
        ).toBe(true);
    }
  });

  it('probes /healthz on the port the gateway listens on', () => {
    const port = gateway.ports.find((p: Any) => p.name === 'http');
    expect(String(port.containerPort)).toBe(flag(args, '--port'));
    expect(flag(args, '--transport')).toBe('http');
    for (const probe of [gateway.readinessProbe, gateway.livenessProbe]) {
      expect(probe.httpGet.path).toBe('/healthz');
      expect(probe.httpGet.port).toBe('http');
    }
    // The same health path HAProxy checks.
    expect(section('backend gateways')).toContain(
      `option httpchk GET ${gateway.readinessProbe.httpGet.path}`,
    );
  });

  it('takes the token and the PostgreSQL URL from Secrets, the replica id from the pod name', () => {
    const env = new Map<string, Any>(
      (gateway.env as Any[]).map((e: Any): [string, Any] => [e.name as string, e.valueFrom]),
    );
    expect(env.get('MCP_HOST_REPLICA_ID')).toEqual({ fieldRef: { fieldPath: 'metadata.name' } });
    const postgres = env.get('MCP_HOST_POSTGRES_URL').secretKeyRef;
    const postgresSecret = one(objects, 'Secret', postgres.name);
    expect(Object.keys(postgresSecret.stringData ?? postgresSecret.data)).toContain(postgres.key);
    // The token: the Secret's key, copied by the init container into the file the config names.
    const tokenVolume = volume('gateway-token');
    const tokenSecret = one(objects, 'Secret', tokenVolume.secret.secretName);
    const [tokenKey] = Object.keys(tokenSecret.stringData ?? tokenSecret.data);
    const init = pod.initContainers.find((c: Any) => c.name === 'gateway-token');
    expect(init.image).toBe(gateway.image);
    const script = init.command.join(' ') as string;
    const source = `${mountOf(init, 'gateway-token')}/${tokenKey}`;
    const config = parseYaml(
      one(objects, 'ConfigMap').data[basename(flag(args, '--config')!)] as string,
    );
    const tokenFile = config.gateway.tokenFile as string;
    expect(script).toContain(`-m 600 ${source} ${tokenFile}`);
    expect(tokenFile.startsWith(`${mountOf(init, 'run')}/`)).toBe(true);
    expect(tokenFile.startsWith(`${mountOf(gateway, 'run')}/`)).toBe(true);
    // The config reads the URL from the environment the Secret fills.
    expect(config.state.postgres.url).toBe('${MCP_HOST_POSTGRES_URL}');
  });

  it('mounts the ConfigMap where --config points, and runs as a non-root user', () => {
    const configPath = flag(args, '--config')!;
    const configVolume = volume('config');
    const configMap = one(objects, 'ConfigMap', configVolume.configMap.name);
    expect(`${mountOf(gateway, 'config')}/${basename(configPath)}`).toBe(configPath);
    expect(Object.keys(configMap.data)).toContain(basename(configPath));
    expect(pod.securityContext.runAsNonRoot).toBe(true);
    expect(pod.securityContext.runAsUser).toBeGreaterThan(0);
  });

  it('holds a config the CLI accepts without an error or a warning', async () => {
    ensureBuiltCli();
    using dir = tempDir();
    const file = join(dir.path, 'mcp.yaml');
    writeFileSync(file, one(objects, 'ConfigMap').data['mcp.yaml'] as string);
    const run = await runCli(['config', 'validate', file], {
      env: cliEnv({ MCP_HOST_POSTGRES_URL: 'postgres://mcp_host:secret@db.invalid:5432/mcp_host' }),
    });
    expect(run.code, run.stderr).toBe(0);
    expect(`${run.stdout}${run.stderr}`).toContain('0 errors, 0 warnings');
  });

  it('serves what the Containerfile serves', () => {
    expect(args).toEqual(containerfile().cmd);
  });
});

const basename = (path: string): string => path.slice(path.lastIndexOf('/') + 1);

/** The Containerfile's instructions (continued lines joined), with its exec-form commands. */
function containerfile() {
  const text = readFileSync(join(deploy, 'Containerfile'), 'utf8').replace(/\\\n/g, ' ');
  const instructions = text
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.trim().startsWith('#'))
    .map((line) => {
      const [keyword = '', ...rest] = line.trim().split(/\s+/);
      return { keyword: keyword.toUpperCase(), value: rest.join(' ') };
    });
  const exec = (keyword: string): string[] =>
    JSON.parse(instructions.find((i) => i.keyword === keyword)!.value) as string[];
  return { instructions, entrypoint: exec('ENTRYPOINT'), cmd: exec('CMD') };
}

describe('deploy/Containerfile', () => {
  beforeAll(() => ensureBuiltCli());
  const { instructions, entrypoint, cmd } = containerfile();
  const all = (keyword: string) => instructions.filter((i) => i.keyword === keyword);
  const help = (...command: string[]) =>
    execFileSync(process.execPath, [cliPath, ...command, '--help'], { encoding: 'utf8' });

  it('builds on node:20-slim, installs production dependencies only, runs unprivileged', () => {
    expect(all('FROM').map((i) => i.value.split(' ')[0])).toEqual(['node:20-slim', 'node:20-slim']);
    expect(all('RUN').some((i) => i.value.includes('npm ci --omit=dev'))).toBe(true);
    const user = all('USER').at(-1)!.value;
    expect(user.split(':')[0]).not.toMatch(/^(0|root)$/);
  });

  it('copies files the repository has and the package ships', () => {
    const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
      files: string[];
      bin: Record<string, string>;
    };
    for (const copy of all('COPY')) {
      const parts = copy.value.split(' ');
      const fromStage = parts[0]!.startsWith('--from=');
      const sources = parts.slice(fromStage ? 1 : 0, -1);
      for (const source of sources) {
        if (source === '.') continue;
        const path = source.replace(/^\/src\//, '');
        if (fromStage) expect(pkg.files, path).toContain(path);
        else expect(existsSync(join(repoRoot, path)), path).toBe(true);
      }
    }
    // The entrypoint is the package's bin.
    expect(entrypoint).toEqual(['node', `/app/${pkg.bin['mcp-host']!.replace(/^\.\//, '')}`]);
    expect(existsSync(cliPath)).toBe(true);
  });

  it('runs `gateway serve` with flags the built CLI has, on the port it exposes and checks', () => {
    expect(cmd.slice(2, 4)).toEqual(['gateway', 'serve']);
    expect(help()).toContain(`${cmd[0]} <file>`);
    const serveHelp = help('gateway', 'serve');
    for (const option of cmd.slice(4).filter((arg) => arg.startsWith('--')))
      expect(serveHelp, option).toContain(`${option} <`);
    expect(cmd[cmd.indexOf('--transport') + 1]).toBe('http');
    const port = flag(cmd, '--port')!;
    expect(all('EXPOSE').map((i) => i.value)).toEqual([port]);
    const healthcheck = all('HEALTHCHECK')[0]!.value;
    expect(healthcheck).toContain(`http://127.0.0.1:${port}/healthz`);
  });
});
