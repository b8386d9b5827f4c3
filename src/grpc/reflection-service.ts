/**
 * The standard gRPC server reflection service (`grpc.reflection.v1.ServerReflection`, and the
 * same under `v1alpha`, which older clients such as some grpcurl versions ask first), served only
 * when the API is made with `reflection: true`. It lists the services and gives the descriptors
 * of a file or of the file defining a symbol, with the files they import; it needs the token as
 * every RPC but health does. Extension queries are answered NOT_FOUND (the API has none).
 */
import {
  status,
  type Metadata,
  type ServerDuplexStream,
  type ServiceDefinition,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import { apiPackageDefinition } from './api-proto.js';
import { DescriptorIndex } from './descriptor-index.js';
import { apiRefusal } from './grpc-status.js';

/** A reflection request as proto-loader gives it (`messageRequest` names the oneof's field). */
interface ReflectionRequest {
  host?: string;
  fileByFilename?: string;
  fileContainingSymbol?: string;
  fileContainingExtension?: { containingType?: string; extensionNumber?: number };
  allExtensionNumbersOfType?: string;
  listServices?: string;
  messageRequest?: string;
}

const UNAUTHENTICATED =
  'missing or wrong API token: send the metadata `authorization: Bearer <token>`';
const MAX_ECHO = 200;

let index: DescriptorIndex | undefined;

/** The implementation of the reflection service over the API's protos. */
export function createReflectionService(
  authorized: (metadata: Metadata) => boolean,
): UntypedServiceImplementation {
  return {
    ServerReflectionInfo: (call: ServerDuplexStream<ReflectionRequest, unknown>) => {
      if (!authorized(call.metadata)) {
        call.emit('error', apiRefusal('UNAUTHENTICATED', UNAUTHENTICATED));
        return;
      }
      index ??= new DescriptorIndex(apiPackageDefinition());
      const descriptors = index;
      call.on('data', (request: ReflectionRequest) => {
        if (!call.cancelled) call.write(answer(descriptors, request));
      });
      call.on('end', () => call.end());
    },
  };
}

/** The `v1alpha` service: the same methods and messages, under the older name. */
export function v1alphaReflection(v1: ServiceDefinition): ServiceDefinition {
  return Object.fromEntries(
    Object.entries(v1).map(([name, method]) => [
      name,
      { ...method, path: method.path.replace('/grpc.reflection.v1.', '/grpc.reflection.v1alpha.') },
    ]),
  );
}

function answer(descriptors: DescriptorIndex, request: ReflectionRequest): unknown {
  const { messageRequest: _which, ...originalRequest } = request;
  const base = { validHost: request.host ?? '', originalRequest };
  if (request.listServices !== undefined)
    return {
      ...base,
      listServicesResponse: { service: descriptors.services.map((name) => ({ name })) },
    };
  let files: Buffer[] | undefined;
  let asked: string;
  if (request.fileContainingSymbol !== undefined) {
    files = descriptors.fileContainingSymbol(request.fileContainingSymbol);
    asked = `symbol '${bounded(request.fileContainingSymbol)}'`;
  } else if (request.fileByFilename !== undefined) {
    files = descriptors.fileByName(request.fileByFilename);
    asked = `file '${bounded(request.fileByFilename)}'`;
  } else asked = 'extensions: this server defines none; anything else';
  if (files !== undefined)
    return { ...base, fileDescriptorResponse: { fileDescriptorProto: files } };
  return {
    ...base,
    errorResponse: { errorCode: status.NOT_FOUND, errorMessage: `${asked} not found` },
  };
}

function bounded(text: string): string {
  return text.length > MAX_ECHO ? `${text.slice(0, MAX_ECHO)}…` : text;
}
