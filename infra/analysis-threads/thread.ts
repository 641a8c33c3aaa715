import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import { analyzeOver } from '../../src/analysis/static/index.ts';
import type { RpcClient, RpcOutcome, RpcRequest } from '../../src/evm/rpc.ts';
import {
  type ClientRef,
  type FromThread,
  fromWire,
  type Outcome,
  type RpcCall,
  rpcErrorFromWire,
  type ToThread,
  toWire,
  type WireError,
} from './protocol.ts';

/**
 * An analysis thread (pool.ts starts it through boot.mjs): runs the static analysis of the jobs
 * the service sends, many at once, and asks the service for every JSON-RPC request they make.
 */

/**
 * The thread's niceness: where the analysis and detection share cores, the CPU goes to detection
 * (and to the main thread that serves the analysis's own requests) first.
 */
const ANALYSIS_THREAD_NICE = 10;

const port = parentPort;
if (!port) throw new Error('infra/analysis-threads/thread.ts runs only as a worker thread');

/**
 * Linux gives each thread its own niceness, set through its thread id (/proc/thread-self); never
 * raised above what the process already has. Elsewhere the thread keeps the process's.
 */
function lowerPriority(): void {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(tid)) setPriority(tid, Math.max(getPriority(tid), ANALYSIS_THREAD_NICE));
  } catch {
    // Not Linux, or not allowed: the thread runs at the process's priority.
  }
}
lowerPriority();

const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
let nextCall = 0;

function ask(client: number, rpc: RpcCall): Promise<unknown> {
  const call = nextCall++;
  return new Promise((resolve, reject) => {
    pending.set(call, { resolve, reject });
    port!.postMessage({ type: 'call', call, client, rpc } satisfies FromThread);
  });
}

/**
 * One client per chain for the thread's life, so that what the coalescing clients over it learn
 * (a node that refuses state overrides) is learnt once, as in the service.
 */
const clients = new Map<number, RpcClient>();

function clientOf(ref: ClientRef): RpcClient {
  let client = clients.get(ref.id);
  if (!client) {
    client = {
      urls: ref.urls,
      request: async <T>(
        method: string,
        params: unknown[] = [],
        options?: { validate?: unknown },
      ): Promise<T> => {
        // A function cannot cross to the service; the analysis never validates its answers.
        if (options?.validate) throw new Error('validate is not supported in an analysis thread');
        return (await ask(ref.id, { method: 'request', request: { method, params } })) as T;
      },
      batch: async <T>(requests: RpcRequest[]): Promise<RpcOutcome<T>[]> => {
        const answers = (await ask(ref.id, { method: 'batch', requests })) as (
          | { ok: true; result: T }
          | { ok: false; error: WireError }
        )[];
        return answers.map((a) => (a.ok ? a : { ok: false, error: rpcErrorFromWire(a.error) }));
      },
    };
    clients.set(ref.id, client);
  }
  return client;
}

async function analyze(message: Extract<ToThread, { type: 'analyze' }>): Promise<void> {
  let outcome: Outcome<Awaited<ReturnType<typeof analyzeOver>>>;
  try {
    outcome = { ok: true, value: await analyzeOver(clientOf(message.client), message.input) };
  } catch (error) {
    outcome = { ok: false, error: toWire(error) };
  }
  port!.postMessage({ type: 'done', job: message.job, outcome } satisfies FromThread);
}

port.on('message', (message: ToThread) => {
  if (message.type === 'analyze') {
    void analyze(message);
    return;
  }
  const waiting = pending.get(message.call);
  if (!waiting) return;
  pending.delete(message.call);
  if (message.outcome.ok) waiting.resolve(message.outcome.value);
  else waiting.reject(fromWire(message.outcome.error));
});

port.postMessage({ type: 'ready' } satisfies FromThread);
