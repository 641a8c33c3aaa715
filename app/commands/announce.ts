import { bumpAuthGeneration } from '../../infra/auth-generation.ts';
import { createRedis, keySpace } from '../../infra/redis.ts';
import type { AppConfig } from '../../src/config/env.ts';
import { createPlanAnnouncer, type PlanChange } from '../../workers/accounts/index.ts';
import { createProducer } from '../../workers/queues.ts';
import { LOCAL_REDIS_URL, redisAnswers, redisNamespace } from '../embedded/index.ts';

/**
 * What the operator's commands tell a running service after they changed an account or a key
 * (docs/operations.md). Without a reachable Redis (a stopped embedded default) there is nothing
 * running to tell.
 */

export async function reachableRedis(config: AppConfig): Promise<string | undefined> {
  return (
    config.env.REDIS_URL ?? ((await redisAnswers(LOCAL_REDIS_URL)) ? LOCAL_REDIS_URL : undefined)
  );
}

/**
 * After a key change: API instances drop their memo of principals at once. Without a reachable
 * Redis (a stopped embedded default) there is nothing running to tell.
 */
export async function announceAuthChange(config: AppConfig): Promise<void> {
  const url = await reachableRedis(config);
  if (!url) return;
  const redis = createRedis(url, 'commands');
  try {
    await bumpAuthGeneration(redis, keySpace(redisNamespace(config.env).prefix).prefix);
  } finally {
    redis.disconnect();
  }
}

/**
 * After a plan change: what a billing webhook's change is followed by too (workers/accounts/plan-changes.ts):
 * the auth generation, and the emails owed handed to the workers.
 */
export async function announcePlanChange(config: AppConfig, change: PlanChange): Promise<void> {
  const url = await reachableRedis(config);
  if (!url) return;
  const prefix = keySpace(redisNamespace(config.env).prefix).prefix;
  const redis = createRedis(url, 'commands');
  const connection = createRedis(url, 'producer');
  const producer = createProducer(connection, prefix);
  try {
    await createPlanAnnouncer({ redis, prefix, producer })(change);
  } finally {
    await producer.close();
    connection.disconnect();
    redis.disconnect();
  }
}
