import { createTestDatabase, createTestRedis } from '../test/support/services.ts';
import { createDb } from '../db/client.ts';
import { createAccountRepository } from '../db/repositories/accounts.ts';
import { tokens } from '../db/schema.ts';
import { generateApiKey, hashPassword } from '../src/accounts/credentials.ts';
import { startService } from '../scripts/service.ts';
import { createLogger } from '../infra/logger.ts';
const addr = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
const [database, redis] = await Promise.all([createTestDatabase(), createTestRedis()]);
const h = createDb(database.url, { max: 2 });
await h.db.insert(tokens).values([{ chainId: 1, address: addr(0xb000), name: 'x', symbol: 'x', detectionSource: 'receipt' }]);
const acc = createAccountRepository(h.db);
const u = await acc.createUser({ email: 'p@e.com', passwordHash: await hashPassword('xxxxxxxxx'), plan: 'PRO' });
const k = generateApiKey();
await acc.generateKey(u!.id, k, { name: 'b', description: null, plan: 'PRO', now: new Date(), expiresAt: null });
await acc.setKeyLimits({ keyHash: k.keyHash }, { requestsPerMinute: 1e8, requestsPerHour: 1e8, requestsPerDay: 1e8 });
const s = await startService({ roles: new Set(['api']), databaseUrl: database.url, redisUrl: redis.url, redisPrefix: redis.prefix, chains: [], knownChainIds: new Set([1]), port: 0, host: '127.0.0.1', logger: createLogger('warn'), jwtSecret: 'x'.repeat(40) });
const all = await Promise.all(Array.from({ length: 50 }, () => fetch(`${s.url}/api/pro/tokens/${addr(0xb000)}?chain_id=1`, { headers: { 'x-api-key': k.apiKey }, signal: AbortSignal.timeout(3000) }).then((r) => r.status, (e) => e.message)));
console.log(all.join(','));
for (let i = 0; i < 3; i++) {
  const r = await fetch(`${s.url}/api/pro/tokens/${addr(0xb000)}?chain_id=1`, { headers: { 'x-api-key': k.apiKey }, signal: AbortSignal.timeout(3000) }).catch((e) => e);
  console.log(r.status ?? r.message, r.headers?.get?.('x-ratelimit-remaining'), r.status ? (await r.text()).slice(0, 100) : '');
}
await s.stop(); await h.close(); await database.drop(); await redis.cleanup(); process.exit(0);
