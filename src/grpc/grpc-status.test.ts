import { status } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { errorCodes } from '../errors/code-docs.js';
import type { ErrorCode } from '../errors/codes.js';
import { JsonRpcError } from '../errors/json-rpc-error.js';
import { McpHostError } from '../errors/mcp-host-error.js';
import { addSecret } from '../errors/redact.js';
import {
  ApiRefusalError,
  apiRefusal,
  ERROR_CODE_METADATA,
  GRPC_STATUS_OF,
  toGrpcStatus,
} from './grpc-status.js';

describe('failures as gRPC statuses', () => {
  it('maps every host error code, and carries the code in the trailing metadata', () => {
    for (const code of Object.keys(errorCodes) as ErrorCode[]) {
      const answer = toGrpcStatus(new McpHostError(code, `failed with ${code}`));
      expect(answer.code, code).toBe(GRPC_STATUS_OF[code]);
      expect(answer.code, code).not.toBe(status.OK);
      expect(answer.metadata?.get(ERROR_CODE_METADATA)).toEqual([code]);
      expect(answer.details).toBe(`failed with ${code}`);
    }
  });

  it.each([
    ['SERVER_UNAVAILABLE', status.UNAVAILABLE],
    ['TOOL_NOT_FOUND', status.NOT_FOUND],
    ['TASK_NOT_FOUND', status.NOT_FOUND],
    ['TOOL_DENIED', status.PERMISSION_DENIED],
    ['ABORTED', status.CANCELLED],
    ['REQUEST_TIMEOUT', status.DEADLINE_EXCEEDED],
    ['QUEUE_FULL', status.RESOURCE_EXHAUSTED],
    ['INVALID_ARGUMENT', status.INVALID_ARGUMENT],
    ['STREAM_INTERRUPTED', status.ABORTED],
    ['AUTH_REQUIRED', status.FAILED_PRECONDITION],
  ] as const)('%s is %s', (code, expected) => {
    expect(toGrpcStatus(new McpHostError(code, 'x')).code).toBe(expected);
  });

  it('keeps UNAUTHENTICATED for the API token alone', () => {
    expect(Object.values(GRPC_STATUS_OF)).not.toContain(status.UNAUTHENTICATED);
    expect(apiRefusal('UNAUTHENTICATED', 'no token').code).toBe(status.UNAUTHENTICATED);
  });

  it('maps JSON-RPC errors by their code', () => {
    const answer = toGrpcStatus(new JsonRpcError(-32602, 'bad params'));
    expect(answer.code).toBe(status.INVALID_ARGUMENT);
    expect(answer.metadata?.get(ERROR_CODE_METADATA)).toEqual(['jsonrpc:-32602']);
    expect(toGrpcStatus(new JsonRpcError(-32002, 'no such resource')).code).toBe(status.NOT_FOUND);
    expect(toGrpcStatus(new JsonRpcError(-32000, 'other')).code).toBe(status.UNKNOWN);
  });

  it('answers refusals and unknown throws, redacted', () => {
    const secret = addSecret('s3cr3t-value-of-the-test');
    try {
      expect(toGrpcStatus(new ApiRefusalError('SERVER_EXISTS', 'taken')).code).toBe(
        status.ALREADY_EXISTS,
      );
      const answer = toGrpcStatus(new Error('boom s3cr3t-value-of-the-test'));
      expect(answer.code).toBe(status.INTERNAL);
      expect(answer.details).not.toContain('s3cr3t-value-of-the-test');
      expect(answer.metadata?.get(ERROR_CODE_METADATA)).toEqual(['INTERNAL']);
    } finally {
      secret.dispose();
    }
  });
});
