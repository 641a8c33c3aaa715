import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { classifyJsonRpcError, RpcError, type RpcErrorKind } from '../../src/evm/rpc.ts';
import { backoffDelay, createRpcClient, type RpcClientOptions } from './client.ts';

// ---------------------------------------------------------------------------------------------
// A local JSON-RPC server whose behaviour each test chooses.
// ---------------------------------------------------------------------------------------------

interface JsonRpcCall {
  jsonrpc: string;
  id: number;
  method: string;
  params: unknown[];
}

/** Decides how to answer one HTTP request; `n` counts the HTTP requests of the current test from 0. */
type Handler = (body: JsonRpcCall | JsonRpcCall[], res: ServerResponse, n: number) => void;

/** The timeout of the tests that make the server hang. */
const TIMEOUT_MS = 200;
/** Other tests use a roomier one, so that a loaded machine cannot turn them into timeout tests. */
const RELAXED_TIMEOUT_MS = 2_000;

let server: Server;
let baseUrl: string;
let closedUrl: string;
/** Every HTTP request body the server received in the current test. */
let received: (JsonRpcCall | JsonRpcCall[])[] = [];
let handler: Handler;

/** What an honest node answers to one call. */
function answer(call: JsonRpcCall): unknown {
  switch (call.method) {
    case 'eth_chainId':
      return { jsonrpc: '2.0', id: call.id, result: '0x1' };
    case 'eth_blockNumber':
      return { jsonrpc: '2.0', id: call.id, result: '0x12a05f2' };
    case 'eth_getCode':
      return { jsonrpc: '2.0', id: call.id, result: `0x6080${String(call.params[0]).slice(2, 6)}` };
    default:
      // Echo the request so that tests can check what was sent.
      return { jsonrpc: '2.0', id: call.id, result: { method: call.method, params: call.params } };
  }
}

function sendJson(res: ServerResponse, value: unknown, status = 200) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}

const honest: Handler = (body, res) =>
  sendJson(res, Array.isArray(body) ? body.map(answer) : answer(body));

/** Misbehaves with `bad` for the first `times` requests, then answers honestly. */
const firstThen =
  (times: number, bad: Handler): Handler =>
  (body, res, n) =>
    n < times ? bad(body, res, n) : honest(body, res, n);

const hang: Handler = () => {
  /* never answer; the client's timeout must fire */
};

function rpcError(code: number, message: string, data?: unknown): Handler {
  return (body, res) => {
    const call = body as JsonRpcCall;
    sendJson(res, {
      jsonrpc: '2.0',
      id: call.id,
      error: { code, message, ...(data === undefined ? {} : { data }) },
    });
  };
}

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as
        | JsonRpcCall
        | JsonRpcCall[];
      const n = received.length;
      received.push(body);
      handler(body, res, n);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  // Warm up fetch (undici loads lazily): the first request of the file should not pay for it.
  handler = honest;
  await fetch(baseUrl, {
    method: 'POST',
    body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'eth_chainId', params: [] }),
  });

  // A port that was just free and is now closed: connections are refused.
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  closedUrl = `http://127.0.0.1:${(probe.address() as AddressInfo).port}/`;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  received = [];
  handler = honest;
});

interface CallInfo {
  method: string;
  url: string;
  ok: boolean;
  errorKind?: RpcErrorKind;
}

function client(overrides: Partial<RpcClientOptions> = {}) {
  const calls: CallInfo[] = [];
  const rpc = createRpcClient({
    urls: [baseUrl],
    timeoutMs: RELAXED_TIMEOUT_MS,
    maxAttempts: 3,
    onCall: ({ method, url, ok, errorKind }) => calls.push({ method, url, ok, errorKind }),
    ...overrides,
  });
  return { rpc, calls };
}

async function rejection(promise: Promise<unknown>): Promise<RpcError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(RpcError);
    return error as RpcError;
  }
  throw new Error('expected the promise to reject');
}

const single = (i: number) => received[i] as JsonRpcCall;

// ---------------------------------------------------------------------------------------------

describe('createRpcClient: request', () => {
  it('refuses an empty URL list', () => {
    expect(() => createRpcClient({ urls: [] })).toThrow(/at least one URL/);
  });

  it('sends a JSON-RPC 2.0 POST and returns the result', async () => {
    const { rpc, calls } = client();
    await expect(rpc.request('eth_blockNumber')).resolves.toBe('0x12a05f2');
    await expect(rpc.request('eth_getBalance', ['0xdead', 'latest'])).resolves.toEqual({
      method: 'eth_getBalance',
      params: ['0xdead', 'latest'],
    });
    expect(received).toHaveLength(2);
    expect(single(0)).toMatchObject({ jsonrpc: '2.0', method: 'eth_blockNumber', params: [] });
    expect(typeof single(0).id).toBe('number');
    expect(single(1).id).not.toBe(single(0).id);
    expect(calls).toEqual([
      { method: 'eth_blockNumber', url: baseUrl, ok: true, errorKind: undefined },
      { method: 'eth_getBalance', url: baseUrl, ok: true, errorKind: undefined },
    ]);
    expect(rpc.urls).toEqual([baseUrl]);
  });

  it('accepts a null result', async () => {
    handler = (body, res) =>
      sendJson(res, { jsonrpc: '2.0', id: (body as JsonRpcCall).id, result: null });
    const { rpc } = client();
    await expect(rpc.request('eth_getTransactionReceipt', ['0xabc'])).resolves.toBeNull();
  });

  it('retries after HTTP 429 and succeeds', async () => {
    handler = firstThen(1, (_b, res) => {
      res.writeHead(429, { 'content-type': 'text/plain', 'retry-after': '0' });
      res.end('Too Many Requests');
    });
    const { rpc, calls } = client();
    await expect(rpc.request('eth_chainId')).resolves.toBe('0x1');
    expect(received).toHaveLength(2);
    expect(calls.map((c) => c.errorKind ?? 'ok')).toEqual(['rate-limited', 'ok']);
  });

  it('classifies HTTP 500 with an HTML page as a server error and retries it', async () => {
    handler = (_b, res) => {
      res.writeHead(500, { 'content-type': 'text/html' });
      res.end('<html><body><h1>500 Internal Server Error</h1></body></html>');
    };
    const { rpc, calls } = client({ maxAttempts: 2 });
    const error = await rejection(rpc.request('eth_chainId'));
    expect(error.kind).toBe('server');
    expect(error.retryable).toBe(true);
    expect(error.message).toMatch(/HTTP 500/);
    expect(received).toHaveLength(2);
    expect(calls.map((c) => c.errorKind)).toEqual(['server', 'server']);
  });

  it('recovers when HTTP 500 HTML is followed by a good answer', async () => {
    handler = firstThen(1, (_b, res) => {
      res.writeHead(500, { 'content-type': 'text/html' });
      res.end('<html>Bad Gateway</html>');
    });
    const { rpc } = client();
    await expect(rpc.request('eth_chainId')).resolves.toBe('0x1');
    expect(received).toHaveLength(2);
  });

  it('retries truncated JSON (bad-response) and succeeds', async () => {
    handler = firstThen(1, (body, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer(body as JsonRpcCall)).slice(0, 20));
    });
    const { rpc, calls } = client();
    await expect(rpc.request('eth_chainId')).resolves.toBe('0x1');
    expect(received).toHaveLength(2);
    expect(calls.map((c) => c.errorKind ?? 'ok')).toEqual(['bad-response', 'ok']);
  });

  it('gives up on persistently truncated JSON after maxAttempts with kind bad-response', async () => {
    handler = (_b, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"jsonrpc":"2.0","id":1,"resu');
    };
    const { rpc } = client({ maxAttempts: 2 });
    const error = await rejection(rpc.request('eth_chainId'));
    expect(error.kind).toBe('bad-response');
    expect(received).toHaveLength(2);
  });

  it('treats a JSON answer with neither result nor error, or a non-object, as bad-response (retried)', async () => {
    handler = (body, res) => sendJson(res, { jsonrpc: '2.0', id: (body as JsonRpcCall).id });
    const { rpc, calls } = client({ maxAttempts: 2 });
    const error = await rejection(rpc.request('eth_chainId'));
    expect(error.kind).toBe('bad-response');
    expect(calls[0]!.ok).toBe(true); // the HTTP round trip itself was fine
    expect(received).toHaveLength(2);

    received = [];
    handler = firstThen(1, (_b, res) => sendJson(res, ['not', 'an', 'object']));
    await expect(rpc.request('eth_chainId')).resolves.toBe('0x1');
    expect(received).toHaveLength(2);
  });

  it('times out a hanging server (kind timeout) and retries', async () => {
    handler = hang;
    const { rpc, calls } = client({ maxAttempts: 2, timeoutMs: TIMEOUT_MS });
    const started = performance.now();
    const error = await rejection(rpc.request('eth_chainId'));
    const elapsed = performance.now() - started;
    expect(error.kind).toBe('timeout');
    expect(error.retryable).toBe(true);
    expect(received).toHaveLength(2);
    expect(calls.map((c) => c.errorKind)).toEqual(['timeout', 'timeout']);
    // Two timeouts plus one backoff (100–200 ms), well under the test timeout.
    expect(elapsed).toBeGreaterThanOrEqual(2 * TIMEOUT_MS - 20);
    expect(elapsed).toBeLessThan(2_000);
  });

  it('succeeds after one hanging attempt', async () => {
    handler = firstThen(1, hang);
    const { rpc } = client({ timeoutMs: TIMEOUT_MS });
    await expect(rpc.request('eth_chainId')).resolves.toBe('0x1');
    expect(received).toHaveLength(2);
  });

  it('times out a server that sends headers and then stalls the body', async () => {
    handler = (_b, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"jsonrpc":"2.0",');
      // …and never finishes.
    };
    const { rpc } = client({ maxAttempts: 2, timeoutMs: TIMEOUT_MS });
    const error = await rejection(rpc.request('eth_chainId'));
    expect(error.retryable).toBe(true);
    expect(error.kind).toBe('timeout');
    expect(received).toHaveLength(2);
  });

  it('does not retry a revert (code 3) and keeps code and data', async () => {
    const revertData =
      '0x08c379a0' +
      '0'.repeat(62) +
      '20' +
      '0'.repeat(63) +
      '4' +
      '6e6f706500000000000000000000000000000000000000000000000000000000';
    handler = rpcError(3, 'execution reverted: nope', revertData);
    const { rpc } = client({ maxAttempts: 5 });
    const error = await rejection(
      rpc.request('eth_call', [{ to: '0xdead', data: '0x06fdde03' }, 'latest']),
    );
    expect(error.kind).toBe('revert');
    expect(error.retryable).toBe(false);
    expect(error.code).toBe(3);
    expect(error.data).toBe(revertData);
    expect(received).toHaveLength(1);
  });

  it('does not retry an unsupported method (-32601)', async () => {
    handler = rpcError(
      -32601,
      'the method debug_traceBlockByNumber does not exist/is not available',
    );
    const { rpc } = client({ maxAttempts: 5 });
    const error = await rejection(
      rpc.request('debug_traceBlockByNumber', ['latest', { tracer: 'callTracer' }]),
    );
    expect(error.kind).toBe('unsupported');
    expect(error.code).toBe(-32601);
    expect(received).toHaveLength(1);
  });

  it('does not retry invalid params (-32602)', async () => {
    handler = rpcError(
      -32602,
      'invalid argument 0: hex string has length 3, want 40 for common.Address',
    );
    const { rpc } = client({ maxAttempts: 5 });
    expect((await rejection(rpc.request('eth_getCode', ['0xabc', 'latest']))).kind).toBe(
      'invalid-request',
    );
    expect(received).toHaveLength(1);
  });

  it('retries a transient JSON-RPC server error (header not found) and succeeds', async () => {
    handler = firstThen(1, rpcError(-32000, 'header not found'));
    const { rpc } = client();
    await expect(rpc.request('eth_getBlockByNumber', ['0x12a05f3', false])).resolves.toEqual({
      method: 'eth_getBlockByNumber',
      params: ['0x12a05f3', false],
    });
    expect(received).toHaveLength(2);
  });

  it('fails over from a closed port to the next URL, and then prefers the working one', async () => {
    const { rpc, calls } = client({ urls: [closedUrl, baseUrl] });
    await expect(rpc.request('eth_chainId')).resolves.toBe('0x1');
    expect(calls).toEqual([
      { method: 'eth_chainId', url: closedUrl, ok: false, errorKind: 'network' },
      { method: 'eth_chainId', url: baseUrl, ok: true, errorKind: undefined },
    ]);
    // The next request goes straight to the URL that worked.
    await expect(rpc.request('eth_blockNumber')).resolves.toBe('0x12a05f2');
    expect(calls.slice(2)).toEqual([
      { method: 'eth_blockNumber', url: baseUrl, ok: true, errorKind: undefined },
    ]);
    expect(received).toHaveLength(2);
  });

  it('reports a network error when every URL is down', async () => {
    const { rpc } = client({ urls: [closedUrl], maxAttempts: 2 });
    const error = await rejection(rpc.request('eth_chainId'));
    expect(error.kind).toBe('network');
    expect(error.retryable).toBe(true);
  });

  it('shares one HTTP request between identical concurrent requests', async () => {
    handler = (body, res) => setTimeout(() => honest(body, res, 0), 50);
    const { rpc } = client();
    const [a, b] = await Promise.all([
      rpc.request('eth_getCode', ['0xabcdef', 'latest']),
      rpc.request('eth_getCode', ['0xabcdef', 'latest']),
    ]);
    expect(a).toBe('0x6080abcd');
    expect(b).toBe(a);
    expect(received).toHaveLength(1);

    // Different params are different requests.
    await Promise.all([
      rpc.request('eth_getCode', ['0xabcdef', 'latest']),
      rpc.request('eth_getCode', ['0x123456', 'latest']),
    ]);
    expect(received).toHaveLength(3);

    // Once settled, the same request goes to the server again (no caching).
    await rpc.request('eth_getCode', ['0xabcdef', 'latest']);
    expect(received).toHaveLength(4);
  });

  it('shares a failure between identical concurrent requests, and forgets it afterwards', async () => {
    handler = firstThen(1, (body, res) =>
      setTimeout(() => rpcError(3, 'execution reverted')(body, res, 0), 30),
    );
    const { rpc } = client();
    const call = () => rpc.request('eth_call', [{ to: '0xdead', data: '0x' }, 'latest']);
    const [a, b] = await Promise.allSettled([call(), call()]);
    expect(a.status).toBe('rejected');
    expect(b.status).toBe('rejected');
    expect(received).toHaveLength(1);
    await expect(call()).resolves.toMatchObject({ method: 'eth_call' });
    expect(received).toHaveLength(2);
  });
});

describe('createRpcClient: batch', () => {
  it('tells the observer the method of every request a batch carried (what providers bill)', async () => {
    const seen: (readonly string[])[] = [];
    const { rpc } = client({ onCall: ({ methods }) => seen.push(methods) });
    await rpc.batch([
      { method: 'eth_getBlockByNumber', params: ['0x1', false] },
      { method: 'eth_getBlockByNumber', params: ['0x2', false] },
      { method: 'eth_chainId', params: [] },
    ]);
    await rpc.request('eth_blockNumber');
    expect(seen).toEqual([
      ['eth_getBlockByNumber', 'eth_getBlockByNumber', 'eth_chainId'],
      ['eth_blockNumber'],
    ]);
  });

  it('returns an empty list for an empty batch without any HTTP request', async () => {
    const { rpc } = client();
    await expect(rpc.batch([])).resolves.toEqual([]);
    expect(received).toHaveLength(0);
  });

  it('returns per-entry outcomes in request order even when the server answers out of order', async () => {
    handler = (body, res) => {
      const calls = body as JsonRpcCall[];
      const answers = calls.map((call) =>
        call.method === 'eth_call' && (call.params[0] as { data: string }).data === '0x06fdde03'
          ? { jsonrpc: '2.0', id: call.id, error: { code: 3, message: 'execution reverted' } }
          : answer(call),
      );
      sendJson(res, answers.reverse());
    };
    const { rpc } = client();
    const outcomes = await rpc.batch([
      { method: 'eth_chainId', params: [] },
      { method: 'eth_call', params: [{ to: '0xdead', data: '0x06fdde03' }, 'latest'] },
      { method: 'eth_blockNumber', params: [] },
      { method: 'eth_call', params: [{ to: '0xdead', data: '0x18160ddd' }, 'latest'] },
    ]);
    expect(received).toHaveLength(1);
    expect(Array.isArray(received[0])).toBe(true);
    expect((received[0] as JsonRpcCall[]).map((c) => c.method)).toEqual([
      'eth_chainId',
      'eth_call',
      'eth_blockNumber',
      'eth_call',
    ]);
    expect(new Set((received[0] as JsonRpcCall[]).map((c) => c.id)).size).toBe(4);

    expect(outcomes).toHaveLength(4);
    expect(outcomes[0]).toEqual({ ok: true, result: '0x1' });
    expect(outcomes[1]!.ok).toBe(false);
    expect(!outcomes[1]!.ok && outcomes[1]!.error.kind).toBe('revert');
    expect(outcomes[2]).toEqual({ ok: true, result: '0x12a05f2' });
    expect(outcomes[3]).toEqual({
      ok: true,
      result: { method: 'eth_call', params: [{ to: '0xdead', data: '0x18160ddd' }, 'latest'] },
    });
  });

  it('marks an entry the server left out as bad-response', async () => {
    handler = (body, res) => sendJson(res, (body as JsonRpcCall[]).slice(1).map(answer));
    const { rpc } = client();
    const outcomes = await rpc.batch([
      { method: 'eth_chainId', params: [] },
      { method: 'eth_blockNumber', params: [] },
    ]);
    expect(outcomes[0]!.ok).toBe(false);
    expect(!outcomes[0]!.ok && outcomes[0]!.error.kind).toBe('bad-response');
    expect(outcomes[1]).toEqual({ ok: true, result: '0x12a05f2' });
  });

  it('retries a batch after HTTP 429', async () => {
    handler = firstThen(1, (_b, res) => {
      res.writeHead(429);
      res.end();
    });
    const { rpc } = client();
    const outcomes = await rpc.batch([{ method: 'eth_chainId', params: [] }]);
    expect(outcomes).toEqual([{ ok: true, result: '0x1' }]);
    expect(received).toHaveLength(2);
  });

  it('throws the classified error when the node answers a batch with one error object', async () => {
    handler = (_b, res) =>
      sendJson(res, {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32601, message: 'batch requests are not supported' },
      });
    const { rpc } = client({ maxAttempts: 5 });
    const error = await rejection(rpc.batch([{ method: 'eth_chainId', params: [] }]));
    expect(error.kind).toBe('unsupported');
    expect(received).toHaveLength(1);
  });

  it('uses fresh ids for consecutive batches', async () => {
    const { rpc } = client();
    await rpc.batch([
      { method: 'eth_chainId', params: [] },
      { method: 'eth_chainId', params: [] },
    ]);
    await rpc.batch([{ method: 'eth_chainId', params: [] }]);
    const ids = received.flatMap((b) => (b as JsonRpcCall[]).map((c) => c.id));
    expect(new Set(ids).size).toBe(3);
  });
});

describe('classifyJsonRpcError', () => {
  const cases: [{ code?: number; message?: string }, RpcErrorKind][] = [
    [{ code: 3, message: 'execution reverted' }, 'revert'],
    [
      { code: -32000, message: 'execution reverted: ERC20: transfer amount exceeds balance' },
      'revert',
    ],
    [{ code: -32015, message: 'VM Exception while processing transaction: revert' }, 'revert'],
    [{ code: -32000, message: 'invalid opcode: INVALID' }, 'revert'],
    [{ code: -32000, message: 'out of gas' }, 'revert'],
    [{ code: -32601, message: 'Method not found' }, 'unsupported'],
    [
      { code: -32000, message: 'the method trace_block does not exist/is not available' },
      'unsupported',
    ],
    [{ code: -32600, message: 'invalid request' }, 'invalid-request'],
    [
      { code: -32602, message: 'invalid argument 0: json: cannot unmarshal hex string' },
      'invalid-request',
    ],
    [{ code: -32005, message: 'limit exceeded' }, 'rate-limited'],
    [{ code: 429, message: 'Too Many Requests' }, 'rate-limited'],
    [{ code: -32000, message: 'header not found' }, 'server'],
    [{ code: -32603, message: 'EVM error InvalidJump' }, 'revert'],
    [{ code: -32603, message: 'EVM error StackUnderflow' }, 'revert'],
    [{ code: -32000, message: 'block does not exist' }, 'server'],
    [{ code: -32000, message: 'missing trie node: state not available' }, 'server'],
    [{ message: 'internal error' }, 'server'],
  ];

  it.each(cases)('%j → %s', (error, kind) => {
    const classified = classifyJsonRpcError(error);
    expect(classified).toBeInstanceOf(RpcError);
    expect(classified.kind).toBe(kind);
    expect(classified.message).toBe(error.message);
    expect(classified.code).toBe(error.code);
  });

  it('marks only transient kinds retryable', () => {
    expect(classifyJsonRpcError({ code: 3, message: 'execution reverted' }).retryable).toBe(false);
    expect(classifyJsonRpcError({ code: -32601, message: 'x' }).retryable).toBe(false);
    expect(classifyJsonRpcError({ code: -32602, message: 'x' }).retryable).toBe(false);
    expect(classifyJsonRpcError({ code: -32005, message: 'x' }).retryable).toBe(true);
    expect(classifyJsonRpcError({ code: -32000, message: 'header not found' }).retryable).toBe(
      true,
    );
  });

  it('keeps data, and tolerates a missing message or a non-numeric code', () => {
    const e = classifyJsonRpcError({ code: 3, message: 'execution reverted', data: '0x08c379a0' });
    expect(e.data).toBe('0x08c379a0');
    const bare = classifyJsonRpcError({});
    expect(bare.kind).toBe('server');
    expect(bare.message).toMatch(/unknown/);
    expect(bare.code).toBeUndefined();
    expect(
      classifyJsonRpcError({ code: '3' as unknown as number, message: 'oops' }).code,
    ).toBeUndefined();
  });
});

describe('backoffDelay', () => {
  const ceiling = (attempt: number) => Math.min(5_000, 200 * 2 ** attempt);

  it('spans [ceiling/2, ceiling] with random 0 and 1', () => {
    expect(backoffDelay(0, () => 0)).toBe(100);
    expect(backoffDelay(0, () => 1)).toBe(200);
    expect(backoffDelay(1, () => 0)).toBe(200);
    expect(backoffDelay(1, () => 1)).toBe(400);
    expect(backoffDelay(3, () => 0)).toBe(800);
    expect(backoffDelay(3, () => 1)).toBe(1_600);
  });

  it('grows with the attempt and is capped at 5 s', () => {
    let previousLow = 0;
    let previousHigh = 0;
    for (let attempt = 0; attempt < 12; attempt++) {
      const low = backoffDelay(attempt, () => 0);
      const high = backoffDelay(attempt, () => 1);
      expect(low).toBe(ceiling(attempt) / 2);
      expect(high).toBe(ceiling(attempt));
      expect(low).toBeGreaterThanOrEqual(previousLow);
      expect(high).toBeGreaterThanOrEqual(previousHigh);
      previousLow = low;
      previousHigh = high;
    }
    expect(backoffDelay(4, () => 1)).toBeGreaterThan(backoffDelay(0, () => 1));
    expect(backoffDelay(30, () => 1)).toBe(5_000);
    expect(backoffDelay(30, () => 0)).toBe(2_500);
  });

  it('stays within bounds with the default random source', () => {
    for (let attempt = 0; attempt < 8; attempt++) {
      for (let i = 0; i < 50; i++) {
        const d = backoffDelay(attempt);
        expect(d).toBeGreaterThanOrEqual(ceiling(attempt) / 2);
        expect(d).toBeLessThanOrEqual(ceiling(attempt));
      }
    }
  });
});

describe('immutable answers', () => {
  const blockHash = `0x${'ab'.repeat(32)}`;

  it('are fetched once when asked by block hash', async () => {
    handler = honest;
    const { rpc } = client();
    const first = await rpc.request('eth_getBlockByHash', [blockHash, false]);
    const second = await rpc.request('eth_getBlockByHash', [blockHash, false]);
    expect(second).toEqual(first);
    expect(received).toHaveLength(1);
  });

  it('are not cached when asked by number, tag or when not found', async () => {
    handler = honest;
    const { rpc } = client();
    await rpc.request('eth_getBlockByNumber', ['0x10', false]);
    await rpc.request('eth_getBlockByNumber', ['0x10', false]);
    expect(received).toHaveLength(2);
    handler = (body, res) =>
      sendJson(res, { jsonrpc: '2.0', id: (body as JsonRpcCall).id, result: null });
    await rpc.request('eth_getBlockReceipts', [blockHash]);
    await rpc.request('eth_getBlockReceipts', [blockHash]);
    expect(received).toHaveLength(4);
  });
});

describe('validated answers', () => {
  const blockHash = `0x${'cd'.repeat(32)}`;

  it('retries an answer the caller refuses, and never caches it', async () => {
    let n = 0;
    handler = (body, res) => {
      const call = body as JsonRpcCall;
      n++;
      sendJson(res, {
        jsonrpc: '2.0',
        id: call.id,
        result: { hash: n === 1 ? `0x${'ee'.repeat(32)}` : blockHash },
      });
    };
    const { rpc } = client();
    const validate = (block: { hash: string }) =>
      block.hash === blockHash ? undefined : 'another block';
    const block = await rpc.request<{ hash: string }>('eth_getBlockByHash', [blockHash, false], {
      validate,
    });
    expect(block.hash).toBe(blockHash);
    expect(received).toHaveLength(2);
    // The good answer is cached; the refused one never was.
    expect(
      (await rpc.request<{ hash: string }>('eth_getBlockByHash', [blockHash, false], { validate }))
        .hash,
    ).toBe(blockHash);
    expect(received).toHaveLength(2);
  });
});
