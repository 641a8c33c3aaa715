import { createServer, type Server } from 'node:http';

/**
 * A local HTTP server speaking the DexScreener token API (`GET /tokens/v1/{chain}/{addresses}`)
 * with scripted failures: the aggregator client is tested against a real socket, not a stub.
 */

export interface MockPair {
  chainId: string;
  dexId: string;
  pairAddress: string;
  baseToken: { address: string; name: string; symbol: string };
  quoteToken: { address: string; name: string; symbol: string };
  priceNative: string;
  priceUsd: string;
  volume: { h24: number; h6: number; h1: number; m5: number };
  liquidity: { usd: number; base: number; quote: number };
  fdv?: number;
  marketCap?: number;
  pairCreatedAt?: number;
}

export interface DexScreenerMock {
  url: string;
  /** Requests received, by path. */
  requests: string[];
  /** Pairs served for a token address (lower-case). */
  setPairs(address: string, pairs: MockPair[]): void;
  /** The next `count` requests answer this status (429 with Retry-After seconds, 5xx, or 'garbage'). */
  failNext(
    count: number,
    failure: { status: number; retryAfterSeconds?: number } | 'garbage',
  ): void;
  close(): Promise<void>;
}

export function mockPair(
  base: string,
  quote: string,
  fields: { priceUsd: number; volume24h: number; liquidityUsd: number; pairAddress?: string },
): MockPair {
  return {
    chainId: 'ethereum',
    dexId: 'uniswap',
    pairAddress: fields.pairAddress ?? `0x${'ab'.repeat(20)}`,
    baseToken: { address: base, name: 'Base', symbol: 'BASE' },
    quoteToken: { address: quote, name: 'Wrapped Ether', symbol: 'WETH' },
    priceNative: '0',
    priceUsd: String(fields.priceUsd),
    volume: { h24: fields.volume24h, h6: 0, h1: 0, m5: 0 },
    liquidity: { usd: fields.liquidityUsd, base: 0, quote: 0 },
  };
}

export async function startDexScreenerMock(): Promise<DexScreenerMock> {
  const pairs = new Map<string, MockPair[]>();
  const failures: ({ status: number; retryAfterSeconds?: number } | 'garbage')[] = [];
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    const path = req.url ?? '/';
    requests.push(path);
    const failure = failures.shift();
    if (failure === 'garbage')
      return void res
        .writeHead(200, { 'content-type': 'application/json' })
        .end('{"pairs": [trunc');
    if (failure) {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (failure.retryAfterSeconds !== undefined)
        headers['retry-after'] = String(failure.retryAfterSeconds);
      return void res
        .writeHead(failure.status, headers)
        .end(JSON.stringify({ error: 'scripted failure' }));
    }
    const match = /^\/tokens\/v1\/([a-z0-9-]+)\/([0-9a-fA-Fx,]+)$/.exec(path);
    if (!match)
      return void res
        .writeHead(404, { 'content-type': 'application/json' })
        .end('{"error":"not found"}');
    const answer = match[2]!.split(',').flatMap((a) => pairs.get(a.toLowerCase()) ?? []);
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    setPairs: (a, p) => void pairs.set(a.toLowerCase(), p),
    failNext: (count, failure) => {
      for (let i = 0; i < count; i++) failures.push(failure);
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
