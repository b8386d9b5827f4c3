/**
 * `mcp-host/grpc`: the gRPC management API of a host. `createApiServer({ host, token?,
 * allowStdioRegistration?, reflection? })` gives an `ApiServer`; `listen({ socket })` or
 * `listen({ port })` serves `mcp_host.v1.McpHostService` (proto/mcp_host/v1/host.proto, shipped in
 * the package), the standard `grpc.health.v1.Health`, and server reflection when asked for
 * (`reflection: true`). A TypeScript client loads the same protos with
 * `loadApiPackage()` and converts JSON with `toStruct` / `fromStruct`. See docs/grpc.md.
 */
export { API_PROTO_OPTIONS } from './grpc/api-proto.js';
export { loadApiPackage } from './grpc/load-api-package.js';
export {
  ApiServer,
  createApiServer,
  DEFAULT_API_SERVER_OPTIONS,
  type ApiAddress,
  type ApiListenOptions,
  type ApiServerOptions,
} from './grpc/api-server.js';
export { type ApiAuditRecord } from './grpc/api-service.js';
export { ERROR_CODE_METADATA } from './grpc/grpc-status.js';
export {
  fromStruct,
  fromValue,
  toStruct,
  toValue,
  type Struct,
  type StructValue,
} from './grpc/struct-json.js';
