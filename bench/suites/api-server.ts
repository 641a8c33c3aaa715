import { readFileSync } from 'node:fs';
import express from 'express';
import { startService } from '../../app/service.ts';
import { silentLogger } from '../../infra/logger.ts';

/**
 * A server process for the API benchmark, so that the load generator and the server do not share
 * an event loop. `app`: the real API role (app/service.ts), as `token-monitor start --role api`
 * runs it. `bare`: a bare Express app answering the same bodies from memory, the baseline.
 * Prints {"port": N} on stdout when listening; stops on SIGTERM.
 */

const [mode, ...args] = process.argv.slice(2);

async function main() {
  if (mode === 'bare') {
    const payloads = JSON.parse(readFileSync(args[0]!, 'utf8')) as Record<string, unknown>;
    const app = express();
    app.disable('x-powered-by');
    app.set('etag', false);
    app.get('/bare/:name', (req, res) => {
      res.json(payloads[req.params.name]);
    });
    const server = app.listen(0, '127.0.0.1', () => {
      const address = server.address();
      console.log(
        JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0 }),
      );
    });
    process.on('SIGTERM', () => server.close(() => process.exit(0)));
    return;
  }
  const [databaseUrl, redisUrl, redisPrefix, poolMax] = args as [string, string, string, string];
  const service = await startService({
    roles: new Set(['api']),
    databaseUrl,
    redisUrl,
    redisPrefix,
    chains: [],
    knownChainIds: new Set([1, 56, 137, 42161, 8453]),
    port: 0,
    host: '127.0.0.1',
    logger: silentLogger,
    jwtSecret: 'bench-secret-bench-secret-bench-secret-0123',
    poolMax: Number(poolMax),
  });
  console.log(JSON.stringify({ port: service.port }));
  process.on('SIGTERM', () => void service.stop().then(() => process.exit(0)));
}

main().catch((error: Error) => {
  console.error(error);
  process.exit(1);
});
