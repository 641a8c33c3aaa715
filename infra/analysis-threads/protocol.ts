import type { StaticInput } from '../../src/analysis/static/index.ts';
import type { StaticAnalysis } from '../../src/analysis/types.ts';
import { RpcError, type RpcErrorKind, type RpcRequest } from '../../src/evm/rpc.ts';

/**
 * The messages between the service and an analysis thread (pool.ts, thread.ts). The thread runs
 * the static analysis; every JSON-RPC request it makes crosses back to the service, which sends it
 * through the chain's own client (its endpoints, lanes, retries and metrics), so that a thread
 * holds no connection of its own.
 */

/** An error as it crosses the boundary: an RpcError keeps its kind, so a revert stays an answer. */
export interface WireError {
  name: string;
  message: string;
  kind?: RpcErrorKind;
  code?: number;
  data?: unknown;
}

export type Outcome<T> = { ok: true; value: T } | { ok: false; error: WireError };

/** A chain's client as the thread knows it: by a number the service gave it, and its URLs. */
export interface ClientRef {
  id: number;
  urls: readonly string[];
}

export type ToThread =
  | { type: 'analyze'; job: number; client: ClientRef; input: StaticInput }
  | { type: 'answer'; call: number; outcome: Outcome<unknown> };

export type RpcCall =
  | { method: 'request'; request: RpcRequest }
  | { method: 'batch'; requests: RpcRequest[] };

export type FromThread =
  | { type: 'ready' }
  | { type: 'call'; call: number; client: number; rpc: RpcCall }
  | { type: 'done'; job: number; outcome: Outcome<StaticAnalysis> };

export function toWire(error: unknown): WireError {
  if (error instanceof RpcError)
    return {
      name: error.name,
      message: error.message,
      kind: error.kind,
      ...(error.code !== undefined ? { code: error.code } : {}),
      ...(error.data !== undefined ? { data: error.data } : {}),
    };
  if (error instanceof Error) return { name: error.name, message: error.message };
  return { name: 'Error', message: String(error) };
}

/** A batch entry's failure: always an RpcError (an error of another kind is the node's). */
export function rpcErrorFromWire(error: WireError): RpcError {
  return new RpcError(error.kind ?? 'server', error.message, error.code, error.data);
}

export function fromWire(error: WireError): Error {
  if (error.kind) return rpcErrorFromWire(error);
  const rebuilt = new Error(error.message);
  rebuilt.name = error.name;
  return rebuilt;
}
