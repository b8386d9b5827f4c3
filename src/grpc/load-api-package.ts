import { loadPackageDefinition, type GrpcObject } from '@grpc/grpc-js';
import { apiPackageDefinition } from './api-proto.js';

/**
 * The API as a gRPC package object, for a TypeScript client: `mcp_host.v1.McpHostService` and
 * `grpc.health.v1.Health` (and `grpc.reflection.v1.ServerReflection`) are client constructors (`new McpHostService(address, credentials)`),
 * loaded from the package's protos with `API_PROTO_OPTIONS`, as the server loads them.
 */
export function loadApiPackage(): GrpcObject {
  return loadPackageDefinition(apiPackageDefinition());
}
