import { createServer, type Server, type ServerResponse } from 'node:http';
import { fromQuantity, toQuantity } from '../../../src/evm/rpc.ts';

/**
 * A JSON-RPC proxy in front of a real node. At `rate`, instead of forwarding, it answers 429, 500,
 * hangs (a timeout for the client), truncates the JSON, or answers for a wrong block (seeded, so a
 * run can be repeated); it can pretend to lack methods (`refuse`: a node without traces or
 * eth_getBlockReceipts); it counts the calls per method. `kinds` narrows the faults it picks from.
 */

export const FAULT_KINDS = [
  'http-429',
  'http-500',
  'timeout',
  'truncated-json',
  'wrong-block',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface FaultProxy {
  url: string;
  injected: Record<FaultKind, number>;
  /** Calls received per JSON-RPC method (batches counted per entry). */
  calls: Map<string, number>;
  forwarded(): number;
  setRate(rate: number): void;
  close(): Promise<void>;
}

interface Call {
  id?: unknown;
  method?: string;
  params?: unknown[];
}

/** mulberry32: a small seeded PRNG. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const HANG_MS = 30_000;

export async function startFaultProxy(
  upstream: string,
  options: { rate: number; seed?: number; refuse?: string[]; kinds?: readonly FaultKind[] },
): Promise<FaultProxy> {
  let rate = options.rate;
  const kinds = options.kinds ?? FAULT_KINDS;
  const refuse = new Set(options.refuse ?? []);
  const calls = new Map<string, number>();
  const random = seeded(options.seed ?? 42);
  const injected = Object.fromEntries(FAULT_KINDS.map((k) => [k, 0])) as Record<FaultKind, number>;
  let forwarded = 0;
  const hanging = new Set<ServerResponse>();

  const forwardOne = async (call: Call): Promise<unknown> => {
    if (call.method && refuse.has(call.method)) {
      return {
        jsonrpc: '2.0',
        id: call.id,
        error: {
          code: -32601,
          message: `the method ${call.method} does not exist/is not available`,
        },
      };
    }
    const response = await fetch(upstream, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(call),
    });
    return response.json();
  };
  const forward = async (body: Call | Call[]) => {
    forwarded++;
    for (const call of Array.isArray(body) ? body : [body])
      calls.set(call.method ?? '?', (calls.get(call.method ?? '?') ?? 0) + 1);
    if (refuse.size === 0) {
      const response = await fetch(upstream, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return response.text();
    }
    return JSON.stringify(
      Array.isArray(body) ? await Promise.all(body.map(forwardOne)) : await forwardOne(body),
    );
  };

  /** Answers as if asked about a neighbouring block: the client must notice and refuse it. */
  const wrongBlock = async (body: Call | Call[]): Promise<string> => {
    const calls = Array.isArray(body) ? body : [body];
    const shifted = calls.map((c) => {
      const params = [...(c.params ?? [])];
      if (
        c.method === 'eth_getBlockByNumber' &&
        typeof params[0] === 'string' &&
        params[0].startsWith('0x')
      ) {
        params[0] = toQuantity(fromQuantity(params[0]) + 1);
        return { ...c, params };
      }
      if (
        c.method === 'eth_getBlockByHash' ||
        c.method === 'eth_getBlockReceipts' ||
        c.method === 'debug_traceBlockByNumber' ||
        c.method === 'trace_block'
      ) {
        return {
          ...c,
          method: c.method === 'eth_getBlockByHash' ? 'eth_getBlockByNumber' : c.method,
          params:
            c.method === 'eth_getBlockByHash' ? ['latest', false] : ['latest', ...params.slice(1)],
        };
      }
      return c;
    });
    return forward(Array.isArray(body) ? shifted : shifted[0]!);
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString()) as Call | Call[];
        if (random() < rate) {
          const kind = kinds[Math.floor(random() * kinds.length)]!;
          injected[kind]++;
          switch (kind) {
            case 'http-429':
              res.writeHead(429, { 'retry-after': '1' }).end('Too Many Requests');
              return;
            case 'http-500':
              res
                .writeHead(500, { 'content-type': 'text/html' })
                .end('<html>Internal Server Error</html>');
              return;
            case 'timeout':
              hanging.add(res);
              setTimeout(() => {
                hanging.delete(res);
                res.destroy();
              }, HANG_MS).unref();
              return;
            case 'truncated-json': {
              const text = await forward(body);
              res
                .writeHead(200, { 'content-type': 'application/json' })
                .end(text.slice(0, Math.max(1, Math.floor(text.length / 2))));
              return;
            }
            case 'wrong-block':
              res
                .writeHead(200, { 'content-type': 'application/json' })
                .end(await wrongBlock(body));
              return;
          }
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end(await forward(body));
      } catch (error) {
        res.writeHead(502).end(String(error));
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    injected,
    calls,
    forwarded: () => forwarded,
    setRate(value) {
      rate = value;
    },
    close: () =>
      new Promise<void>((r) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
