/**
 * The JSON-RPC contract every part of the service speaks: requests, outcomes and classified
 * errors (callers never retry a revert), and JSON-RPC quantities. Pure: the HTTP client that
 * implements `RpcClient` is infra/rpc (the service's edge), so that analysis and decoding take a
 * client and never open a connection themselves.
 */

const EVM_HALT =
  /^evm error|invalid jump|stack underflow|stack overflow|invalidfeopcode|opcodenotfound/;
const UNSUPPORTED_METHOD = new RegExp(
  'method[^,;]* (not found|does not exist|not available|not supported|is not supported)' +
    '|not supported|unsupported method',
);

const RETRYABLE: ReadonlySet<RpcErrorKind> = new Set([
  'rate-limited',
  'server',
  'timeout',
  'network',
  'bad-response',
]);

export type RpcErrorKind =
  | 'revert' // the call executed and reverted: an answer, not a failure
  | 'invalid-request' // our request is wrong; retrying cannot help
  | 'unsupported' // the node does not offer this method
  | 'rate-limited'
  | 'server' // a JSON-RPC error that may pass (header not found, …)
  | 'timeout'
  | 'network'
  | 'bad-response'; // truncated or malformed JSON, wrong shape

export class RpcError extends Error {
  constructor(
    readonly kind: RpcErrorKind,
    message: string,
    readonly code?: number,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'RpcError';
  }
  get retryable(): boolean {
    return RETRYABLE.has(this.kind);
  }
}

export type RpcOutcome<T = unknown> = { ok: true; result: T } | { ok: false; error: RpcError };

export interface RpcRequest {
  method: string;
  params: unknown[];
}

export interface RpcClient {
  readonly urls: readonly string[];
  /**
   * `validate` checks an answer inside the retry loop: a message means "this answer is wrong"
   * (another block, say), which is retried like a malformed response and never cached.
   */
  request<T = unknown>(
    method: string,
    params?: unknown[],
    options?: { validate?: (result: T) => string | undefined },
  ): Promise<T>;
  /** Sends the requests as one JSON-RPC batch; each entry succeeds or fails on its own. */
  batch<T = unknown>(requests: RpcRequest[]): Promise<RpcOutcome<T>[]>;
}

export function classifyJsonRpcError(error: {
  code?: number;
  message?: string;
  data?: unknown;
}): RpcError {
  const message = String(error.message ?? 'unknown JSON-RPC error');
  const code = typeof error.code === 'number' ? error.code : undefined;
  const lower = message.toLowerCase();
  let kind: RpcErrorKind = 'server';
  // Anvil reports EVM halts as -32603 "EVM error InvalidJump" and the like: an answer, not a
  // failure.
  if (
    code === 3 ||
    lower.includes('revert') ||
    lower.includes('invalid opcode') ||
    lower.includes('out of gas') ||
    EVM_HALT.test(lower)
  )
    kind = 'revert';
  // Only a missing *method* is "unsupported": "block does not exist" or "state not available"
  // come from a lagging or pruned node and deserve a retry, possibly on another URL.
  else if (code === -32601 || UNSUPPORTED_METHOD.test(lower)) kind = 'unsupported';
  else if (
    code === -32600 ||
    code === -32602 ||
    lower.includes('invalid argument') ||
    lower.includes('invalid params')
  )
    kind = 'invalid-request';
  else if (code === -32005 || lower.includes('rate limit') || lower.includes('too many requests'))
    kind = 'rate-limited';
  return new RpcError(kind, message, code, error.data);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * JSON-RPC quantities (0x-prefixed hex without leading zeros) to and from numbers: the one place
 * they are parsed. Block numbers, timestamps and counts fit a double; token amounts are uint256
 * words and are read as bigint where they are decoded, never through here.
 */
export const toQuantity = (n: number | bigint): string => `0x${n.toString(16)}`;
export const fromQuantity = (hex: string): number => Number.parseInt(hex, 16);
