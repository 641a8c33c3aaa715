import type { Logger } from 'pino';
import {
  classifyJsonRpcError,
  type RpcClient,
  RpcError,
  type RpcErrorKind,
  type RpcOutcome,
  type RpcRequest,
  sleep,
} from '../../src/evm/rpc.ts';
import {
  createEndpointPool,
  type EndpointOutcome,
  type EndpointPool,
  type RpcPriority,
} from './endpoints.ts';

/**
 * A small JSON-RPC client: several URLs with failover, timeouts, retries with exponential
 * backoff and jitter for transient failures only, in-flight de-duplication of identical reads,
 * and JSON-RPC batches. Errors are classified so that callers never retry a revert.
 */

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_ATTEMPTS = 5;
const BACKOFF_BASE_MS = 200;
const BACKOFF_MAX_MS = 5_000;
/** Answers to requests by block hash never change; this many are kept. */
const IMMUTABLE_CACHE_SIZE = 2_000;
const BLOCK_HASH = /^0x[0-9a-fA-F]{64}$/;

export interface RpcClientOptions {
  urls: readonly string[];
  /** Whose turn comes first when the endpoints are full (infra/rpc/endpoints.ts); 'normal' by default. */
  priority?: RpcPriority;
  timeoutMs?: number;
  maxAttempts?: number;
  logger?: Logger;
  /** Observes every HTTP round trip (metrics). */
  onCall?: (info: {
    method: string;
    /** The method of each JSON-RPC request the round trip carried (a batch carries several). */
    methods: readonly string[];
    url: string;
    ok: boolean;
    errorKind?: RpcErrorKind;
    ms: number;
  }) => void;
  fetchImpl?: typeof fetch;
  /** Per-URL adaptive concurrency and cooldowns; defaults to one built from `urls`. */
  endpoints?: EndpointPool;
}

/**
 * Whether the answer is immutable: asked by block hash (the same hash always names the same
 * block).
 */
export function isImmutableRequest(method: string, params: readonly unknown[]): boolean {
  switch (method) {
    case 'eth_chainId':
      return true;
    case 'eth_getBlockByHash':
    case 'eth_getBlockReceipts':
    case 'debug_traceBlockByHash':
      return typeof params[0] === 'string' && BLOCK_HASH.test(params[0]);
    default:
      return false;
  }
}

function outcomeOf(error: RpcError): EndpointOutcome {
  if (error.kind === 'rate-limited') return 'rate-limited';
  // A revert, an invalid request or a missing method is a healthy node answering.
  return error.retryable ? 'failed' : 'ok';
}

interface JsonRpcResponse {
  id?: unknown;
  result?: unknown;
  error?: { code?: number; message?: string; data?: unknown };
}

export function backoffDelay(attempt: number, random = Math.random): number {
  const ceiling = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** attempt);
  // "Equal jitter": at least half the ceiling, the rest random, so many clients spread out.
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

type Validate<T> = (result: T) => string | undefined;

/** How requests reach a node: the HTTP side of the client. */
interface HttpTransport {
  doFetch: typeof fetch;
  timeoutMs: number;
  onCall: RpcClientOptions['onCall'];
}

/** When to try again, and where: the retry side of the client. */
interface RetryPolicy {
  endpoints: EndpointPool;
  priority: RpcPriority;
  maxAttempts: number;
  logger?: Logger;
}

/** A fetch or body read that failed: a timeout when the signal fired, a network error otherwise. */
function transportError(error: unknown, label: string, timeoutMs: number): RpcError {
  const name = (error as Error).name;
  const isTimeout = name === 'TimeoutError' || name === 'AbortError';
  const detail = isTimeout ? `no answer within ${timeoutMs} ms` : (error as Error).message;
  return new RpcError(isTimeout ? 'timeout' : 'network', `${label}: ${detail}`);
}

/** POSTs `body` and reads the whole answer, within the transport's timeout. */
async function fetchText(
  http: HttpTransport,
  url: string,
  body: unknown,
  label: string,
): Promise<{ response: Response; text: string }> {
  let response: Response;
  try {
    response = await http.doFetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(http.timeoutMs),
    });
  } catch (error) {
    throw transportError(error, label, http.timeoutMs);
  }
  try {
    return { response, text: await response.text() };
  } catch (error) {
    // The timeout signal also covers reading the body: a stalled body is a timeout too.
    throw transportError(error, label, http.timeoutMs);
  }
}

/** The JSON of an HTTP answer, or the RpcError it amounts to (429, not JSON, an error page). */
function parseHttpAnswer(response: Response, text: string, label: string): unknown {
  if (response.status === 429) throw new RpcError('rate-limited', `${label}: HTTP 429`);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    const kind: RpcErrorKind = response.status >= 500 ? 'server' : 'bad-response';
    throw new RpcError(kind, `${label}: HTTP ${response.status}, not JSON`);
  }
  if (!response.ok && !(json && typeof json === 'object')) {
    throw new RpcError('server', `${label}: HTTP ${response.status}`);
  }
  return json;
}

/** One HTTP round trip, reported to `onCall` whatever its outcome. */
async function post(http: HttpTransport, url: string, body: unknown, label: string) {
  const started = performance.now();
  const methods = (Array.isArray(body) ? body : [body]).map((r) => String(r.method));
  const finish = (ok: boolean, errorKind?: RpcErrorKind) =>
    http.onCall?.({ method: label, methods, url, ok, errorKind, ms: performance.now() - started });
  let json: unknown;
  try {
    const { response, text } = await fetchText(http, url, body, label);
    json = parseHttpAnswer(response, text, label);
  } catch (error) {
    // Every failure above is an RpcError; its kind is what the observer records.
    if (error instanceof RpcError) finish(false, error.kind);
    throw error;
  }
  finish(true);
  return json;
}

/** Runs `attempt` on the endpoint the pool picks, until it succeeds or fails for good. */
async function withRetries<T>(
  policy: RetryPolicy,
  label: string,
  attempt: (url: string) => Promise<T>,
): Promise<T> {
  let lastError: RpcError | undefined;
  for (let i = 0; i < policy.maxAttempts; i++) {
    const lease = await policy.endpoints.acquire(policy.priority);
    const url = lease.url;
    try {
      const value = await attempt(url);
      lease.release('ok');
      return value;
    } catch (error) {
      if (!(error instanceof RpcError)) {
        lease.release('failed');
        throw error;
      }
      lease.release(outcomeOf(error));
      if (!error.retryable) throw error;
      lastError = error;
      policy.logger?.debug({ err: error.message, url, attempt: i + 1 }, 'rpc retry');
      if (i < policy.maxAttempts - 1) await sleep(backoffDelay(i));
    }
  }
  throw lastError ?? new RpcError('network', `${label}: no attempt made`);
}

/** The result of a single JSON-RPC answer, or the RpcError it carries. */
function singleResult<T>(json: unknown, method: string, validate?: Validate<T>): T {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    throw new RpcError('bad-response', `${method}: not a JSON-RPC object`);
  }
  const answer = json as JsonRpcResponse;
  if (answer.error) throw classifyJsonRpcError(answer.error);
  if (!('result' in answer))
    throw new RpcError('bad-response', `${method}: neither result nor error`);
  const problem = validate?.(answer.result as T);
  if (problem) throw new RpcError('bad-response', `${method}: ${problem}`);
  return answer.result as T;
}

/** Matches a batch answer to its requests by id (ids `firstId`…): each succeeds or fails alone. */
function batchOutcomes<T>(
  json: unknown,
  count: number,
  firstId: number,
  label: string,
): RpcOutcome<T>[] {
  if (!Array.isArray(json)) {
    // A node that refuses the whole batch answers one error object.
    const single = json as JsonRpcResponse;
    if (single?.error) throw classifyJsonRpcError(single.error);
    throw new RpcError('bad-response', `${label}: batch answer is not an array`);
  }
  const byId = new Map<number, JsonRpcResponse>();
  for (const entry of json as JsonRpcResponse[]) {
    if (typeof entry?.id === 'number') byId.set(entry.id, entry);
  }
  return Array.from({ length: count }, (_, i): RpcOutcome<T> => {
    const entry = byId.get(firstId + i);
    if (!entry) {
      return { ok: false, error: new RpcError('bad-response', `${label}: answer ${i} missing`) };
    }
    if (entry.error) return { ok: false, error: classifyJsonRpcError(entry.error) };
    return { ok: true, result: entry.result as T };
  });
}

export function createRpcClient(options: RpcClientOptions): RpcClient {
  if (options.urls.length === 0) throw new Error('createRpcClient: at least one URL is required');
  const http: HttpTransport = {
    doFetch: options.fetchImpl ?? fetch,
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    onCall: options.onCall,
  };
  const retries: RetryPolicy = {
    endpoints: options.endpoints ?? createEndpointPool(options.urls),
    priority: options.priority ?? 'normal',
    maxAttempts: options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
    logger: options.logger,
  };
  const inFlight = new Map<string, Promise<unknown>>();
  const immutable = new Map<string, unknown>();
  let nextId = 1;

  function requestOnce<T>(method: string, params: unknown[], validate?: Validate<T>): Promise<T> {
    return withRetries(retries, method, async (url) => {
      const body = { jsonrpc: '2.0', id: nextId++, method, params };
      return singleResult(await post(http, url, body, method), method, validate);
    });
  }

  function remember(key: string, result: unknown) {
    if (immutable.size >= IMMUTABLE_CACHE_SIZE) immutable.delete(immutable.keys().next().value!);
    immutable.set(key, result);
  }

  return {
    urls: options.urls,
    request<T>(
      method: string,
      params: unknown[] = [],
      requestOptions: { validate?: Validate<T> } = {},
    ): Promise<T> {
      // Identical reads in flight share one round trip.
      const key = `${method}:${JSON.stringify(params)}`;
      if (immutable.has(key)) return Promise.resolve(immutable.get(key) as T);
      const pending = inFlight.get(key);
      if (pending) return pending as Promise<T>;
      const promise = requestOnce<T>(method, params, requestOptions.validate)
        .then((result) => {
          // null means "not found (yet)": only real answers are remembered.
          if (result !== null && isImmutableRequest(method, params)) remember(key, result);
          return result;
        })
        .finally(() => inFlight.delete(key));
      inFlight.set(key, promise);
      return promise;
    },
    async batch<T>(requests: RpcRequest[]): Promise<RpcOutcome<T>[]> {
      if (requests.length === 0) return [];
      const firstId = nextId;
      nextId += requests.length;
      const label = `batch(${requests[0]!.method}…×${requests.length})`;
      const body = requests.map((r, i) => ({
        jsonrpc: '2.0',
        id: firstId + i,
        method: r.method,
        params: r.params,
      }));
      return withRetries(retries, label, async (url) =>
        batchOutcomes<T>(await post(http, url, body, label), requests.length, firstId, label),
      );
    },
  };
}
