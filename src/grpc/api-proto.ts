/**
 * The API's protocol buffers, loaded at run time from the `.proto` files the package ships
 * (`proto/mcp_host/v1/host.proto`, `proto/grpc/health/v1/health.proto` and
 * `proto/grpc/reflection/v1/reflection.proto`): no generated code. The
 * same loader options serve the server and a TypeScript client (`loadApiPackage`), so both see
 * the same object shapes: camelCase fields, enums as their names, 64-bit integers as strings,
 * oneofs named by a virtual field, and absent fields left out. (`loadApiPackage`, for clients,
 * is a module of its own, so the server's code does not import what only a client uses.)
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ServiceDefinition } from '@grpc/grpc-js';
import { loadSync, type Options, type PackageDefinition } from '@grpc/proto-loader';
import { McpHostError } from '../errors/mcp-host-error.js';

/** The proto files, relative to the package's `proto/` folder. */
const PROTO_FILES = [
  'mcp_host/v1/host.proto',
  'grpc/health/v1/health.proto',
  'grpc/reflection/v1/reflection.proto',
];

/** How the protos are loaded, on both sides of the API. */
export const API_PROTO_OPTIONS: Readonly<Options> = Object.freeze({
  longs: String,
  enums: String,
  defaults: false,
  oneofs: true,
});

/** The full name of the management service, as the health service knows it. */
export const API_SERVICE_NAME = 'mcp_host.v1.McpHostService';

let loaded: PackageDefinition | undefined;

/**
 * The package's `proto/` folder: found by walking up from this module, which is
 * `src/grpc/api-proto.ts` in the repository and a file of `dist/` (or `dist/chunks/`) in the
 * published package.
 */
export function apiProtoDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let level = 0; level < 5; level++) {
    const candidate = join(dir, 'proto');
    if (existsSync(join(candidate, PROTO_FILES[0]!))) return candidate;
    dir = dirname(dir);
  }
  throw new McpHostError(
    'INTERNAL',
    `the API's proto files (proto/${PROTO_FILES[0]!}) were not found above ${fileURLToPath(import.meta.url)}`,
  );
}

/** The API's protos, loaded once. */
export function apiPackageDefinition(): PackageDefinition {
  loaded ??= loadSync(PROTO_FILES, { ...API_PROTO_OPTIONS, includeDirs: [apiProtoDir()] });
  return loaded;
}

/** The service definitions the server implements. */
export function apiServiceDefinitions(): {
  api: ServiceDefinition;
  health: ServiceDefinition;
  reflection: ServiceDefinition;
} {
  const definition = apiPackageDefinition();
  return {
    api: definition[API_SERVICE_NAME] as ServiceDefinition,
    health: definition['grpc.health.v1.Health'] as ServiceDefinition,
    reflection: definition['grpc.reflection.v1.ServerReflection'] as ServiceDefinition,
  };
}
