import type { Logger } from 'pino';
import { createDb, runMigrations } from '../../db/client.ts';
import { createHolderRepository } from '../../db/repositories/holders.ts';
import { createReplayRepository } from '../../db/repositories/replay.ts';
import { createTokenRepository } from '../../db/repositories/tokens.ts';
import { createEventPublisher } from '../../infra/events.ts';
import { createRedis, keySpace } from '../../infra/redis.ts';
import type { AppConfig } from '../../src/config/env.ts';
import { createChainRuntimes } from '../../workers/chain-runtime.ts';
import { createProducer, startWorkers } from '../../workers/queues.ts';
import {
  createReplayProcessor,
  type ReplayProgress,
  replayRange,
} from '../../workers/replay/index.ts';
import { redisNamespace, resolveDatabase, resolveRedis } from '../embedded/index.ts';
import { ensureOwnNamespace } from '../namespace.ts';

/** `token-monitor replay --chain-id N --from A --to B` (docs/operations.md). */

const BAR_WIDTH = 30;

function formatProgress(p: ReplayProgress): string {
  const filled = Math.round((p.done / p.total) * BAR_WIDTH);
  const eta = p.etaSeconds === null ? '?' : `${Math.ceil(p.etaSeconds)}s`;
  return `[${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}] ${p.done}/${p.total} blocks  ${p.blocksPerSecond.toFixed(1)} blocks/s  ETA ${eta}`;
}

export async function replayCommand(
  config: AppConfig,
  logger: Logger,
  args: { chainId: number; from: number; to: number },
): Promise<number> {
  const chainConfig = config.chains.find((c) => c.chainId === args.chainId);
  if (!chainConfig) {
    console.error(
      `chain ${args.chainId} has no RPC configured (CHAINS_FILE or RPC_URL_${args.chainId})`,
    );
    return 2;
  }
  if (args.from > args.to) {
    console.error('--from must not be greater than --to');
    return 2;
  }
  const database = await resolveDatabase(config.env.DATABASE_URL, config.env.DATA_DIR, logger);
  const redis = await resolveRedis(config.env.REDIS_URL, config.env.DATA_DIR, logger);
  await runMigrations(database.url);
  const keys = keySpace(redisNamespace(config.env).prefix);
  const { db, close } = createDb(database.url, { max: config.env.DATABASE_URL ? 4 : 1 });
  const commandRedis = createRedis(redis.url, 'commands');
  // Refused before any worker touches another deployment's queues; the exit hooks clean up.
  await ensureOwnNamespace(db, commandRedis, keys, { database: database.url, redis: redis.url });
  const producerConnection = createRedis(redis.url, 'producer');
  const workerConnection = createRedis(redis.url, 'worker');
  const producer = createProducer(producerConnection, keys.prefix);
  const chains = createChainRuntimes([chainConfig], logger);
  const tokens = createTokenRepository(db);
  const holders = createHolderRepository(db);
  // This process works the replay queue itself; worker processes of a running service help.
  const pool = startWorkers({
    connection: workerConnection,
    prefix: keys.prefix,
    logger,
    processors: {
      replay: createReplayProcessor({
        chains,
        tokens,
        replayHolders: holders,
        producer,
        events: createEventPublisher(commandRedis, keys.events),
        logger,
      }),
    },
  });

  let stopping = false;
  const onSignal = () => {
    if (stopping) process.exit(130);
    stopping = true;
    process.stderr.write(
      '\nstopping after the batches in flight; run the same command again to resume\n',
    );
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const tty = process.stderr.isTTY;
  let lastLine = 0;
  try {
    const result = await replayRange(
      {
        chain: chains.get(args.chainId)!,
        producer,
        ranges: createReplayRepository(db),
        holders,
        logger,
        shouldStop: () => stopping,
        onProgress: (p) => {
          if (tty) process.stderr.write(`\r${formatProgress(p)}`);
          else if (Date.now() - lastLine > 1_000 || p.done === p.total) {
            lastLine = Date.now();
            process.stderr.write(
              `${JSON.stringify({ progress: { ...p, blocksPerSecond: Number(p.blocksPerSecond.toFixed(2)) } })}\n`,
            );
          }
        },
      },
      args.from,
      args.to,
    );
    if (tty) process.stderr.write('\n');
    if (result.status === 'finished' || result.status === 'nothing-to-do') {
      if (result.clippedTo !== null)
        process.stderr.write(`replay stopped at the finalized head, block ${result.clippedTo}\n`);
    }
    console.log(
      process.stdout.isTTY
        ? `replay ${result.status}: ${JSON.stringify(result)}`
        : JSON.stringify(result),
    );
    return result.status === 'failed' ? 1 : 0;
  } finally {
    await pool.close();
    await producer.close();
    for (const c of [commandRedis, producerConnection, workerConnection]) c.disconnect();
    await close();
    await redis.stop();
    await database.stop();
  }
}
