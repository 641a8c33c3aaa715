import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An HTTP JSON-RPC pass-through in front of a node that counts what the service asks: every
 * request of a batch is a call (providers bill batch entries one by one), by method, and every
 * HTTP round trip. The load generator talks to the node directly, so only the service is counted.
 */

export interface RpcMeter {
  url: string;
  /** Calls by method since the last reset. */
  calls(): Record<string, number>;
  roundTrips(): number;
  reset(): void;
  close(): Promise<void>;
}

export async function startRpcMeter(target: string): Promise<RpcMeter> {
  let counts = new Map<string, number>();
  let trips = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(chunks).toString();
      trips++;
      try {
        const parsed = JSON.parse(body) as { method?: string } | { method?: string }[];
        for (const call of Array.isArray(parsed) ? parsed : [parsed]) {
          const method = call?.method ?? 'unknown';
          counts.set(method, (counts.get(method) ?? 0) + 1);
        }
      } catch {
        counts.set('unparsed', (counts.get('unparsed') ?? 0) + 1);
      }
      try {
        const answer = await fetch(target, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        });
        res.writeHead(answer.status, { 'content-type': 'application/json' });
        res.end(Buffer.from(await answer.arrayBuffer()));
      } catch (error) {
        res.writeHead(502);
        res.end((error as Error).message);
      }
    });
  });
  // Keep-alive connections from the service's fetch: many requests, few sockets.
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls: () => Object.fromEntries(counts),
    roundTrips: () => trips,
    reset() {
      counts = new Map();
      trips = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
