import { createServer, type Server } from 'node:http';

/**
 * A JSON-RPC proxy in front of a real node that can pretend to lack methods (a node without
 * traces or eth_getBlockReceipts) and counts what passes through.
 */

export interface RpcProxy {
  url: string;
  calls: Map<string, number>;
  close(): Promise<void>;
}

interface JsonRpcCall {
  id?: unknown;
  method?: string;
}

export async function startRpcProxy(upstream: string, options: { refuse?: string[] } = {}): Promise<RpcProxy> {
  const refuse = new Set(options.refuse ?? []);
  const calls = new Map<string, number>();
  const forward = async (call: JsonRpcCall) => {
    calls.set(call.method ?? '?', (calls.get(call.method ?? '?') ?? 0) + 1);
    if (call.method && refuse.has(call.method)) {
      return { jsonrpc: '2.0', id: call.id, error: { code: -32601, message: `the method ${call.method} does not exist/is not available` } };
    }
    const response = await fetch(upstream, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(call) });
    return response.json();
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString()) as JsonRpcCall | JsonRpcCall[];
        const answer = Array.isArray(body) ? await Promise.all(body.map(forward)) : await forward(body);
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
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
    calls,
    close: () => new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    }),
  };
}
