import { connect, createServer, type Server, type Socket } from 'node:net';

/** A TCP proxy that can cut its connections and refuse new ones for a while (a network outage). */

export interface TcpProxy {
  port: number;
  /** Drops every connection and refuses new ones for `ms`. */
  outage(ms: number): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let downUntil = 0;
  const server: Server = createServer((client) => {
    if (Date.now() < downUntil) {
      client.destroy();
      return;
    }
    const upstream = connect(targetPort, targetHost);
    sockets.add(client);
    sockets.add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', drop);
    upstream.on('error', drop);
    client.on('close', drop);
    upstream.on('close', drop);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : 0,
    async outage(ms) {
      downUntil = Date.now() + ms;
      for (const s of sockets) s.destroy();
      sockets.clear();
      await new Promise((r) => setTimeout(r, ms));
    },
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}
