import { parseArgs } from 'node:util';
import type { Logger } from 'pino';
import { z } from 'zod';
import { assembleComplete, INCLUDE_ALL, shapeComplete } from '../../api/token-view.ts';
import { createDb, runMigrations } from '../../db/client.ts';
import { createTokenRepository, type TokenRepository } from '../../db/repositories/tokens.ts';
import { createEventPublisher } from '../../infra/events.ts';
import { createRedis, keySpace } from '../../infra/redis.ts';
import type { ChainConfig } from '../../src/config/chains.ts';
import type { AppConfig } from '../../src/config/env.ts';
import { hasReached, type Stage } from '../../src/stages.ts';
import { createChainRuntimes } from '../../workers/chain-runtime.ts';
import { createProducer } from '../../workers/queues.ts';
import { createSubmitter } from '../../workers/submit.ts';
import { redisNamespace, resolveDatabase, resolveRedis } from '../embedded/index.ts';
import { startService } from '../service.ts';
import { type CliIo, parseOptions, positiveInt } from './input.ts';

/**
 * `token-monitor analyze --chain-id N --address A` (docs/operations.md): runs one contract through
 * the pipeline now and prints the token as the API's complete view shows it. The command runs the
 * stage workers itself, so it works alone and beside a running service.
 */

const DEFAULT_TIMEOUT_SECONDS = 120;
const MAX_TIMEOUT_SECONDS = 3_600;
const POLL_MS = 250;
/** `analyze` waits for the risk stage: the last one that moves a token's `stage` (src/stages.ts). */
const DONE_STAGE: Stage = 'risk';

interface AnalyzeInput {
  chain: ChainConfig;
  address: string;
  timeoutSeconds: number;
}

function parseAnalyzeArgs(config: AppConfig, args: string[], io: CliIo): AnalyzeInput {
  const { values } = parseArgs({
    args,
    options: {
      'chain-id': { type: 'string' },
      address: { type: 'string' },
      'timeout-seconds': { type: 'string' },
    },
    strict: true,
  });
  const input = parseOptions(
    z.object({
      chain_id: positiveInt(Number.MAX_SAFE_INTEGER).refine(
        (id) => config.knownChainIds.has(id),
        'unknown chain id',
      ),
      address: z
        .string('is required')
        .regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x-prefixed 20-byte hex address')
        .transform((a) => a.toLowerCase()),
      timeout_seconds: positiveInt(MAX_TIMEOUT_SECONDS).optional(),
    }),
    {
      chain_id: values['chain-id'],
      address: values.address,
      timeout_seconds: values['timeout-seconds'],
    },
    io,
  );
  const chain = config.chains.find((c) => c.chainId === input.chain_id);
  if (!chain)
    io.fail(
      `analyze: chain ${input.chain_id} has no RPC endpoint (set RPC_URL_${input.chain_id} or CHAINS_FILE)`,
    );
  return {
    chain,
    address: input.address,
    timeoutSeconds: input.timeout_seconds ?? DEFAULT_TIMEOUT_SECONDS,
  };
}

/** Polls the token's row until the pass submitted at `since` reached DONE_STAGE. */
async function awaitPass(tokens: TokenRepository, input: AnalyzeInput, since: Date): Promise<void> {
  const deadline = Date.now() + input.timeoutSeconds * 1000;
  for (;;) {
    const row = await tokens.get(input.chain.chainId, input.address);
    // The row's stage never moves back, so an earlier pass's `risk` only counts once the row
    // was written again after this submission.
    if (row && hasReached(row.stage, DONE_STAGE) && row.updatedAt.getTime() >= since.getTime())
      return;
    if (Date.now() > deadline)
      throw new Error(
        `analyze: the pipeline did not finish within the timeout (stage: ${row?.stage ?? 'unknown'})`,
      );
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

export async function analyzeCommand(
  config: AppConfig,
  logger: Logger,
  args: string[],
  io: CliIo & { poolMax?: number },
): Promise<void> {
  const input = parseAnalyzeArgs(config, args, io);
  const database = await resolveDatabase(config.env.DATABASE_URL, config.env.DATA_DIR, logger);
  const redis = await resolveRedis(config.env.REDIS_URL, config.env.DATA_DIR, logger);
  const keys = keySpace(redisNamespace(config.env).prefix);
  await runMigrations(database.url);
  const service = await startService({
    roles: new Set(['worker']),
    databaseUrl: database.url,
    redisUrl: redis.url,
    redisPrefix: keys.prefix,
    chains: [input.chain],
    knownChainIds: config.knownChainIds,
    port: 0,
    host: '127.0.0.1',
    logger,
    poolMax: io.poolMax,
  });
  const handle = createDb(database.url, { max: 1 });
  const commandRedis = createRedis(redis.url, 'commands');
  const producerConnection = createRedis(redis.url, 'producer');
  const producer = createProducer(producerConnection, keys.prefix);
  const tokens = createTokenRepository(handle.db);
  try {
    const submit = createSubmitter({
      chains: createChainRuntimes([input.chain], logger),
      tokens,
      producer,
      events: createEventPublisher(commandRedis, keys.events),
      redis: commandRedis,
      redisPrefix: keys.prefix,
      logger,
    });
    const submittedAt = new Date();
    const result = await submit(input.chain.chainId, input.address);
    // Thrown, not io.fail: the finally block below must stop what this command started.
    if (result.status === 'not-found') throw new Error(`Token not found: ${result.reason}`);
    await awaitPass(tokens, input, submittedAt);
    const [token] = await assembleComplete(tokens, [
      { chainId: input.chain.chainId, address: input.address },
    ]);
    const full = shapeComplete(token!, INCLUDE_ALL, Date.now());
    io.output(full, JSON.stringify(full, null, 2));
  } finally {
    await producer.close();
    commandRedis.disconnect();
    producerConnection.disconnect();
    await handle.close();
    await service.stop();
    await redis.stop();
    await database.stop();
  }
}
