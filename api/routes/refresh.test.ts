import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { and, eq } from 'drizzle-orm';
import { parseEther } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Service } from '../../app/service.ts';
import { createDb, type DbHandle } from '../../db/client.ts';
import { createAccountRepository } from '../../db/repositories/accounts.ts';
import { tokens } from '../../db/schema.ts';
import { decodeEntry } from '../../infra/events.ts';
import { silentLogger } from '../../infra/logger.ts';
import { createRedis, keySpace } from '../../infra/redis.ts';
import { createProAccount } from '../../test/support/accounts.ts';
import { closeServer, listen, request, testAppDeps } from '../../test/support/api.ts';
import { addLiquidity, startTestChain, type TestChain } from '../../test/support/chain.ts';
import { startTestService } from '../../test/support/service.ts';
import {
  createTestDatabase,
  createTestRedis,
  eventually,
  type TestDatabase,
  type TestRedis,
} from '../../test/support/services.ts';
import { createChainRuntimes } from '../../workers/chain-runtime.ts';
import { createProducer, type Producer } from '../../workers/queues.ts';
import { createApp } from '../app.ts';
import * as S from '../schemas.ts';

/**
 * The refresh endpoint (docs/api.md) and `analyze` (docs/operations.md) on a real chain: an unknown contract is probed; a token is
 * recorded (detection_source 'submitted', no creation data), announced and run through the
 * pipeline; no code, a non-token or a DEX pair answer 404 Token not found.
 */

const run = promisify(execFile);

let chain: TestChain;
let database: TestDatabase;
let testRedis: TestRedis;
let handle: DbHandle;
let redis: ReturnType<typeof createRedis>;
let producerConnection: ReturnType<typeof createRedis>;
let producer: Producer;
let workers: Service;
let server: Server;
let base: string;
let auth: Record<string, string>;

beforeAll(async () => {
  [chain, database, testRedis] = await Promise.all([
    startTestChain(),
    createTestDatabase(),
    createTestRedis(),
  ]);
  handle = createDb(database.url, { max: database.embedded ? 1 : 4 });
  redis = createRedis(testRedis.url, 'commands');
  producerConnection = createRedis(testRedis.url, 'producer');
  producer = createProducer(producerConnection, testRedis.prefix);
  const config = chain.chainConfig();
  workers = await startTestService({
    roles: ['worker'],
    database,
    redis: testRedis,
    chain: config,
  });
  const app = createApp(
    testAppDeps({
      db: handle.db,
      redis,
      prefix: testRedis.prefix,
      knownChainIds: new Set([1, config.chainId]),
      producer,
      chains: createChainRuntimes([config], silentLogger),
    }),
  );
  ({ server, base } = await listen(app));
  const { apiKey } = await createProAccount(createAccountRepository(handle.db), {
    email: 'refresh@example.com',
  });
  auth = { authorization: `Bearer ${apiKey}` };
});

afterAll(async () => {
  await closeServer(server);
  await workers?.stop();
  await producer?.close();
  redis?.disconnect();
  producerConnection?.disconnect();
  await handle?.close();
  await database?.drop();
  await testRedis?.cleanup();
  await chain?.stop();
});

const refresh = (address: string) =>
  request(`${base}/api/tokens/${address}/refresh?chain_id=${chain.anvil.chainId}`, {
    method: 'POST',
    headers: auth,
  });

describe('refresh of a contract the scanner never saw', () => {
  it('probes it, records it with null creation data, announces it and runs the pipeline', async () => {
    const { address } = await chain.deploy('SimpleToken', [
      'Submitted Token',
      'SUBM',
      parseEther('1000'),
    ]);
    const mixed = `0x${address.slice(2).toUpperCase()}`;
    const r = await refresh(mixed);
    expect(r.status, r.text).toBe(202);
    expect(r.body).toEqual({ status: 'queued' });
    const row = await eventually(
      async () => {
        const [t] = await handle.db
          .select()
          .from(tokens)
          .where(and(eq(tokens.chainId, chain.anvil.chainId), eq(tokens.address, address)));
        return t?.stage === 'risk' ? t : undefined;
      },
      60_000,
      'the submitted token through the whole pipeline',
    );
    expect(row).toMatchObject({
      name: 'Submitted Token',
      symbol: 'SUBM',
      decimals: 18,
      totalSupply: parseEther('1000').toString(),
      detectionSource: 'submitted',
      creator: null,
      creationTxHash: null,
      creationBlockNumber: null,
      creationTimestamp: null,
    });
    expect(row.codeLength).toBeGreaterThan(0);
    expect(row.announcedAt).not.toBeNull();
    const events = (await redis.xrange(keySpace(testRedis.prefix).events, '-', '+')).map((e) =>
      decodeEntry(e as [string, string[]]),
    );
    expect(
      events.filter((e) => e?.type === 'token.created' && e.data.contract_address === address),
    ).toHaveLength(1);
    // The general detail view answers it now.
    const detail = await request(`${base}/api/tokens/${address}?chain_id=${chain.anvil.chainId}`, {
      headers: auth,
    });
    expect(S.tokenDetail.parse(detail.body)).toMatchObject({
      detection_source: 'submitted',
      creator: null,
      analysis_stage: 'risk',
    });
  });

  it('answers 404 Token not found for an address without code, a contract that is no token, and a DEX pair', async () => {
    const notToken = await chain.deploy('NotAToken');
    const { address: token } = await chain.deploy('SimpleToken', [
      'Paired',
      'PAIR',
      parseEther('1000'),
    ]);
    const pair = await addLiquidity(chain, token, parseEther('100'));
    for (const address of [`0x${'12'.repeat(20)}`, notToken.address, pair]) {
      const r = await refresh(address);
      expect(r.status, address).toBe(404);
      expect(r.body).toEqual({ error: 'Token not found' });
    }
    const rows = await handle.db.select().from(tokens).where(eq(tokens.address, pair));
    expect(rows).toEqual([]);
  });
});

describe('token-monitor analyze', () => {
  it('runs one existing contract through the pipeline and prints its complete token object as JSON', async () => {
    const { address } = await chain.deploy('SimpleToken', ['Analyzed', 'ANLZ', parseEther('5')]);
    const dir = mkdtempSync(join(tmpdir(), 'tm-analyze-'));
    try {
      const config = chain.chainConfig();
      const chainsFile = join(dir, 'chains.json');
      writeFileSync(
        chainsFile,
        JSON.stringify({
          chains: [
            {
              chain_id: config.chainId,
              name: 'Test',
              rpc_urls: config.rpcUrls,
              wrapped_native: config.wrappedNative,
              dexes: config.dexes.map((d) => ({
                name: d.name,
                kind: d.kind,
                factory: d.factory,
                router: d.router,
              })),
            },
          ],
        }),
      );
      const { stdout } = await run(
        process.execPath,
        [
          '--import',
          'tsx',
          'app/cli.ts',
          'analyze',
          '--chain-id',
          String(config.chainId),
          '--address',
          address,
        ],
        {
          env: {
            ...process.env,
            DATABASE_URL: database.url,
            REDIS_URL: testRedis.url,
            REDIS_PREFIX: testRedis.prefix,
            CHAINS_FILE: chainsFile,
            LOG_LEVEL: 'silent',
            DATA_DIR: dir,
          },
          timeout: 90_000,
        },
      );
      const printed = S.completeToken.parse(JSON.parse(stdout));
      // A submitted token: no creation data, scored by the whole pipeline.
      expect(printed).toMatchObject({
        contract_address: address,
        full_token_data: { token: { symbol: 'ANLZ' }, creation: { tx_hash: null } },
      });
      expect(printed.current_risk_score).not.toBeNull();
      expect(printed.analyses!.length).toBeGreaterThan(0);
      // The DEX stage follows risk and may already have written the token's first snapshot.
      expect(printed.token_history?.length ?? 0).toBeLessThanOrEqual(1);
      expect(printed.trading_simulation).toMatchObject({ error: 'no liquidity' });
      const failed = await run(
        process.execPath,
        [
          '--import',
          'tsx',
          'app/cli.ts',
          'analyze',
          '--chain-id',
          String(config.chainId),
          '--address',
          `0x${'34'.repeat(20)}`,
        ],
        {
          env: {
            ...process.env,
            DATABASE_URL: database.url,
            REDIS_URL: testRedis.url,
            REDIS_PREFIX: testRedis.prefix,
            CHAINS_FILE: chainsFile,
            LOG_LEVEL: 'silent',
            DATA_DIR: dir,
          },
          timeout: 90_000,
        },
      ).then(
        () => undefined,
        (error: { code: number; stderr: string }) => error,
      );
      expect(failed?.code).toBe(1);
      expect(failed?.stderr).toMatch(/Token not found/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
