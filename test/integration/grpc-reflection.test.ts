/**
 * gRPC server reflection on the management API (`reflection: true`), driven by a grpc-js client
 * loading the package's reflection proto: off by default (UNIMPLEMENTED), refused without the
 * token, and when on, the services listed and descriptors that decode into a consistent set
 * (each file's imports returned with it, the whole set loadable by proto-loader), under both the
 * v1 and the v1alpha names; unknown symbols and files answered NOT_FOUND on the same stream.
 */
import { randomBytes } from 'node:crypto';
import {
  credentials,
  Metadata,
  status,
  type Client,
  type ClientDuplexStream,
  type ServiceClientConstructor,
  type ServiceError,
} from '@grpc/grpc-js';
import {
  loadFileDescriptorSetFromObject,
  loadSync,
  type MessageTypeDefinition,
} from '@grpc/proto-loader';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiServer, loadApiPackage, type ApiServer } from '../../src/grpc.js';
import { McpHost } from '../../src/index.js';
import { leakGuard, type LeakGuard } from '../helpers/leak-guard.js';

const TOKEN = `api-token-${randomBytes(12).toString('hex')}`;
const V1 = '/grpc.reflection.v1.ServerReflection/ServerReflectionInfo';
const V1ALPHA = '/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo';

interface FileDescriptor {
  name: string;
  package?: string;
  dependency?: string[];
  service?: { name: string; method?: { name: string; inputType: string }[] }[];
  messageType?: { name: string; field?: { typeName?: string }[] }[];
}

const fileDescriptorProto = loadSync('google/protobuf/descriptor.proto')[
  'google.protobuf.FileDescriptorProto'
] as MessageTypeDefinition<object, FileDescriptor>;

type Answer = Record<string, unknown> & {
  listServicesResponse?: { service: { name: string }[] };
  fileDescriptorResponse?: { fileDescriptorProto: Buffer[] };
  errorResponse?: { errorCode: number; errorMessage: string };
};

const ServerReflection = (
  loadApiPackage() as unknown as {
    grpc: { reflection: { v1: { ServerReflection: ServiceClientConstructor } } };
  }
).grpc.reflection.v1.ServerReflection;
const method = ServerReflection.service.ServerReflectionInfo!;

function bearer(token = TOKEN): Metadata {
  const metadata = new Metadata();
  metadata.set('authorization', `Bearer ${token}`);
  return metadata;
}

/** Sends each request on one reflection stream; resolves with the answers, or the error. */
function reflect(
  client: Client,
  requests: object[],
  metadata = bearer(),
  path = V1,
): Promise<{ answers: Answer[]; error?: ServiceError }> {
  const call = client.makeBidiStreamRequest(
    path,
    method.requestSerialize,
    method.responseDeserialize,
    metadata,
    { deadline: Date.now() + 15_000 },
  ) as ClientDuplexStream<object, Answer>;
  const answers: Answer[] = [];
  return new Promise((resolve) => {
    call.on('data', (answer: Answer) => answers.push(answer));
    call.on('error', (error: ServiceError) => resolve({ answers, error }));
    call.on('end', () => resolve({ answers }));
    for (const request of requests) call.write(request);
    call.end();
  });
}

function decode(answer: Answer): FileDescriptor[] {
  const files = answer.fileDescriptorResponse?.fileDescriptorProto ?? [];
  expect(files.length).toBeGreaterThan(0);
  return files.map((bytes) => fileDescriptorProto.deserialize(Buffer.from(bytes)));
}

let guard: LeakGuard;
let host: McpHost;
let on: ApiServer;
let off: ApiServer;
let onClient: Client;
let offClient: Client;

beforeAll(async () => {
  guard = leakGuard();
  host = new McpHost();
  on = createApiServer({ host, token: TOKEN, reflection: true });
  off = createApiServer({ host, token: TOKEN });
  onClient = new ServerReflection(
    (await on.listen({ port: 0 })).address,
    credentials.createInsecure(),
  );
  offClient = new ServerReflection(
    (await off.listen({ port: 0 })).address,
    credentials.createInsecure(),
  );
});

afterAll(async () => {
  onClient?.close();
  offClient?.close();
  await on?.close();
  await off?.close();
  await host?.close();
  await guard?.[Symbol.asyncDispose]();
});

describe('gRPC server reflection', () => {
  it('is off by default (UNIMPLEMENTED)', async () => {
    const { error } = await reflect(offClient, [{ listServices: '' }]);
    expect(error?.code).toBe(status.UNIMPLEMENTED);
  });

  it('refuses a client without the right token (UNAUTHENTICATED)', async () => {
    const none = await reflect(onClient, [{ listServices: '' }], new Metadata());
    expect(none.error?.code).toBe(status.UNAUTHENTICATED);
    expect(none.answers).toEqual([]);
    const wrong = await reflect(onClient, [{ listServices: '' }], bearer(`${TOKEN}x`));
    expect(wrong.error?.code).toBe(status.UNAUTHENTICATED);
  });

  it('lists the services, under v1 and v1alpha', async () => {
    for (const path of [V1, V1ALPHA]) {
      const { answers, error } = await reflect(onClient, [{ listServices: '*' }], bearer(), path);
      expect(error).toBeUndefined();
      const names = answers[0]!.listServicesResponse!.service.map((s) => s.name);
      expect(names).toEqual(
        expect.arrayContaining(['mcp_host.v1.McpHostService', 'grpc.health.v1.Health']),
      );
    }
  });

  it('gives the file defining a symbol with its imports, a set that loads', async () => {
    const { answers, error } = await reflect(onClient, [
      { fileContainingSymbol: 'mcp_host.v1.McpHostService' },
      { fileContainingSymbol: 'mcp_host.v1.McpHostService.CallTool' },
      { fileByFilename: 'grpc/health/v1/health.proto' },
    ]);
    expect(error).toBeUndefined();
    expect(answers).toHaveLength(3);
    const files = decode(answers[0]!);
    const [first] = files;
    expect(first!.name).toBe('mcp_host/v1/host.proto');
    expect(first!.package).toBe('mcp_host.v1');
    expect(first!.service?.[0]?.name).toBe('McpHostService');
    expect(first!.dependency).toEqual(
      expect.arrayContaining(['google/protobuf/struct.proto', 'google/protobuf/timestamp.proto']),
    );
    // Type references fully qualified, as protoc writes them.
    const references = first!
      .messageType!.flatMap((m) => m.field ?? [])
      .flatMap((f) => f.typeName ?? []);
    expect(references.length).toBeGreaterThan(0);
    for (const reference of references) expect(reference).toMatch(/^\.\w/);
    expect(first!.service![0]!.method![0]!.inputType).toMatch(/^\.mcp_host\.v1\./);
    // Every import is in the answer, as a client resolving types by file name needs.
    const names = files.map((file) => file.name);
    for (const file of files)
      for (const dependency of file.dependency ?? []) expect(names).toContain(dependency);
    const loaded = loadFileDescriptorSetFromObject({ file: files });
    expect(Object.keys(loaded['mcp_host.v1.McpHostService'] ?? {})).toContain('CallTool');
    expect(decode(answers[1]!)[0]!.name).toBe('mcp_host/v1/host.proto');
    const health = decode(answers[2]!);
    expect(health[0]!.name).toBe('grpc/health/v1/health.proto');
    expect(health[0]!.service?.[0]?.method?.map((m) => m.name)).toEqual(['Check', 'Watch']);
  });

  it('answers NOT_FOUND for unknown symbols, files and extension queries, and goes on', async () => {
    const { answers, error } = await reflect(onClient, [
      { fileContainingSymbol: 'no.such.Service' },
      { fileByFilename: 'no/such.proto' },
      { allExtensionNumbersOfType: 'mcp_host.v1.ServerInfo' },
      { listServices: '' },
    ]);
    expect(error).toBeUndefined();
    expect(answers.slice(0, 3).map((a) => a.errorResponse?.errorCode)).toEqual([
      status.NOT_FOUND,
      status.NOT_FOUND,
      status.NOT_FOUND,
    ]);
    expect(answers[0]!.errorResponse!.errorMessage).toContain('no.such.Service');
    expect(answers[3]!.listServicesResponse).toBeDefined();
  });
});
