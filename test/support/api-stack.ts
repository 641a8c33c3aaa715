import type { Server } from 'node:http';
import { eq } from 'drizzle-orm';
import type { Express } from 'express';
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import type { z } from 'zod';
import { createUsageCounter, signToken, type UsageCounter } from '../../api/access/index.ts';
import { createApp } from '../../api/app.ts';
import type { RouteSpec } from '../../api/route.ts';
import * as S from '../../api/schemas.ts';
import { createDb, type DbHandle } from '../../db/client.ts';
import {
  type AccountRepository,
  createAccountRepository,
  type UserRow,
} from '../../db/repositories/accounts.ts';
import {
  createTokenRepository,
  type DetectedToken,
  type TokenRepository,
} from '../../db/repositories/tokens.ts';
import {
  analyses,
  creators as creatorsTable,
  tokenHistory,
  tokens as tokensTable,
} from '../../db/schema.ts';
import { bumpAuthGeneration } from '../../infra/auth-generation.ts';
import { silentLogger } from '../../infra/logger.ts';
import { createRedis } from '../../infra/redis.ts';
import { hashPassword, sha256Hex } from '../../src/accounts/credentials.ts';
import type { RiskLevel } from '../../src/analysis/types.ts';
import type { Plan } from '../../src/plans.ts';
import { createProducer, type Producer } from '../../workers/queues.ts';
import {
  closeServer,
  type JsonResult,
  listen,
  request,
  TEST_JWT_SECRET,
  testAppDeps,
} from './api.ts';
import {
  createTestDatabase,
  createTestRedis,
  type TestDatabase,
  type TestRedis,
} from './services.ts';

/**
 * The API contract tests' stack: real Postgres and Redis (test/support/services.ts), two app
 * instances sharing them as two API processes would, each answer checked against the schema its
 * route declares (a disagreement is a 500 that fails the test), and a seeded set of tokens.
 * One per test file: `const stack = useApiStack()` registers its hooks.
 */

export const KNOWN_CHAINS = new Set([1, 56, 137, 42161, 8453, 31337]);
export const MSG = {
  unauthorized: 'Unauthorized. Please log in again.',
  pro: 'PRO plan required',
  basic: 'BASIC or PRO plan required',
  tokenNotFound: 'Token not found',
  keyNotFound: 'API key not found',
  inWatchlist: 'Token already in watchlist',
  rateLimited: 'Rate limit exceeded. Please try again later.',
  cooldown: 'Refresh cooldown active',
};
export const SQL_ATTACKS = [
  "' OR 1=1--",
  '1; drop table tokens',
  "0x' OR '1'='1",
  "'); delete from users; --",
  '1 union select * from api_keys',
];
export const HIGH_LIMITS = {
  requestsPerMinute: 1_000_000,
  requestsPerHour: 1_000_000,
  requestsPerDay: 1_000_000,
};

export const addr = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
export const upper = (address: string) => address.toUpperCase().replace('0X', '0x');
export const CREATOR = addr(0xc0ffee);
export const bearer = (credential: string) => ({ authorization: `Bearer ${credential}` });

export interface TestUser {
  user: UserRow;
  jwt: string;
  email: string;
  password: string;
}

export function detected(
  chainId: number,
  address: string,
  symbol: string,
  extra: Partial<DetectedToken> = {},
): DetectedToken {
  return {
    chainId,
    address,
    name: `${symbol} Token`,
    symbol,
    decimals: 18,
    totalSupply: '1000000000000000000000000',
    creationTxHash: `0x${'ab'.repeat(32)}`,
    creator: CREATOR,
    creatorIsContract: false,
    txOrigin: null,
    creationBlockNumber: 100,
    creationBlockHash: `0x${'cd'.repeat(32)}`,
    creationTimestamp: new Date('2024-05-01T12:00:00.000Z'),
    creationGasUsed: 1000,
    detectionSource: 'receipt',
    ...extra,
  };
}

export function expectError(result: JsonResult, status: number, message?: string | RegExp): string {
  expect(result.status, result.text).toBe(status);
  expect(result.type).toMatch(/^application\/json/);
  expect(result.text).not.toMatch(/<html|<!DOCTYPE|<pre>|\bat .*\.(ts|js):\d+/i);
  expect(Object.keys(result.body as object)).toEqual(['error']);
  const error = (result.body as { error: string }).error;
  expect(typeof error).toBe('string');
  if (typeof message === 'string') expect(error).toBe(message);
  else if (message) expect(error).toMatch(message);
  return error;
}

export function expectShape<T extends z.ZodType>(
  schema: T,
  result: JsonResult,
  status = 200,
): z.infer<T> {
  expect(result.status, result.text).toBe(status);
  const parsed = schema.safeParse(result.body);
  expect(parsed.success, JSON.stringify(parsed.error?.issues ?? [])).toBe(true);
  return parsed.data as z.infer<T>;
}

export interface ApiStack {
  database: TestDatabase;
  testRedis: TestRedis;
  handle: DbHandle;
  accounts: AccountRepository;
  tokenRepo: TokenRepository;
  redisA: ReturnType<typeof createRedis>;
  producer: Producer;
  usageA: UsageCounter;
  /** Two app instances sharing Postgres and Redis. */
  A: string;
  B: string;
  routes: readonly RouteSpec[];
  /** Set to move the injected clock; reset before each test. */
  clockOverride: Date | undefined;
  clock: () => Date;
  pro: TestUser;
  proKey: string;
  call(
    base: string,
    method: string,
    path: string,
    options?: { headers?: Record<string, string>; body?: unknown; raw?: string },
  ): Promise<JsonResult>;
  makeUser(plan: Plan, extra?: { trialEndsAt?: Date; paymentFailedAt?: Date }): Promise<TestUser>;
  generateKey(base: string, user: TestUser, limits?: typeof HIGH_LIMITS): Promise<string>;
  /** Tests change accounts through the repository, as an operator command does; this announces it. */
  authChanged(): Promise<void>;
}

let serial = 0;
let clientSerial = 0;

/** Seeds five tokens (oldest first) with risk and liquidity as the later stages would write them. */
async function seedTokens(stack: ApiStack): Promise<void> {
  const { handle, tokenRepo } = stack;
  const plan: [
    number,
    number,
    string,
    Partial<{ score: number; level: RiskLevel; liquidity: string; name: string }>,
  ][] = [
    [1, 0xa001, 'SAFE', { score: 10, level: 'low', liquidity: '250000.50' }],
    [1, 0xa002, 'MEDI', { score: 45, level: 'medium', liquidity: '1000' }],
    [56, 0xa003, 'HONY', { score: 98, level: 'honeypot', liquidity: '50' }],
    [137, 0xa004, 'NEWT', {}],
    [1, 0xa005, 'PEPE', { score: 70, level: 'high', liquidity: '5000', name: 'Pepe Classic' }],
  ];
  for (const [chainId, n, symbol, risk] of plan) {
    await tokenRepo.upsertDetected(
      detected(chainId, addr(n), symbol, risk.name ? { name: risk.name } : {}),
    );
    if (risk.score !== undefined) {
      await handle.db
        .update(tokensTable)
        .set({
          currentRiskScore: risk.score,
          currentRiskLevel: risk.level,
          currentLiquidityUsd: risk.liquidity,
          isActivelyTraded: true,
        })
        .where(eq(tokensTable.address, addr(n)));
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  await tokenRepo.updateBytecode(1, addr(0xa001), {
    bytecodeHash: `0x${'ee'.repeat(32)}`,
    codeLength: 1234,
    proxyLike: false,
  });
  await handle.db
    .update(creatorsTable)
    .set({ successCount: 1, scamCount: 1, reputationScore: 40 })
    .where(eq(creatorsTable.address, CREATOR));
  const simulation = {
    is_buyable: true,
    is_sellable: true,
    buy_tax_pct: 0,
    sell_tax_pct: 0,
    transfer_tax_pct: 0,
    max_tx_amount: null,
    simulated_at: '2024-05-01T12:05:00.000Z',
    error: null,
    is_honeypot: false,
    amounts: [],
  };
  const hints = {
    is_proxy: false,
    is_mintable: true,
    can_blacklist: false,
    can_pause: false,
    fee_modifiable: false,
    has_max_tx_limit: false,
    trading_restricted: false,
    owner_can_change_balance: false,
    hidden_owner: false,
    ownership_renounced: false,
    owner_address: addr(0x0e),
    creator_reputation_score: 40,
    liquidity_lock: null,
  };
  const dexHints = {
    is_tradable: true,
    has_liquidity: true,
    has_v3_liquidity: false,
    total_liquidity_usd: 250000.5,
    token_price_usd: 1.25,
    buy_url:
      'https://app.uniswap.org/swap?chain=mainnet&outputCurrency=0x000000000000000000000000000000000000a001',
    num_trading_pairs: 1,
    main_trading_pair: addr(0xb001),
    trading_pairs: [
      {
        dex: 'uniswap-v2',
        pair_address: addr(0xb001),
        quote_token: addr(0xc001),
        liquidity_usd: 250000.5,
        price_usd: 1.25,
      },
    ],
    recommended_dex: 'uniswap-v2',
    volume_24h_usd: 100,
  };
  // SAFE as every stage would leave it: analysed, simulated, scored, DEX state just read.
  await handle.db
    .update(tokensTable)
    .set({
      skeletonHash: `0x${'51'.repeat(32)}`,
      template: 'openzeppelin-erc20',
      tradingSimulation: simulation,
      securityHints: hints,
      isHoneypot: false,
      ownerAddress: addr(0x0e),
      priceUsd: '1.25',
      dexHints,
      refreshTier: 'fast',
      dexUpdatedAt: new Date(),
      liquidityLock: {
        locked_pct: 80,
        burned_pct: 15,
        lockers: [
          { name: 'unicrypt', address: addr(0x10c), pair_address: addr(0xb001), locked_pct: 80 },
        ],
      },
    })
    .where(eq(tokensTable.address, addr(0xa001)));
  const mintFactor = {
    code: 'admin:mint',
    points: 15,
    severity: 'medium',
    message: 'The owner can mint new tokens',
    evidence: [
      {
        kind: 'function',
        detail: 'mint(address,uint256) (0x40c10f19) is callable by the owner only',
        selector: '40c10f19',
      },
    ],
  };
  const staticPart = {
    admin_functions: [
      {
        name: 'mint',
        signature: 'mint(address,uint256)',
        selector: '40c10f19',
        family: 'mint',
        risk_level: 'high',
        description: 'Creates new tokens',
        access_control: 'owner-only',
        evidence: [],
      },
    ],
  };
  await handle.db.insert(analyses).values([
    {
      chainId: 1,
      address: addr(0xa001),
      inputHash: 'h0',
      riskScore: 20,
      riskLevel: 'low',
      riskFactors: [mintFactor],
      actionableInsights: [],
      alerts: [],
      details: { static: staticPart },
      createdAt: new Date('2024-05-01T12:01:00.000Z'),
    },
    {
      chainId: 1,
      address: addr(0xa001),
      inputHash: 'h1',
      riskScore: 10,
      riskLevel: 'low',
      riskFactors: [
        mintFactor,
        {
          code: 'liquidity-locked',
          points: -5,
          severity: 'info',
          message: 'Liquidity 95% locked or burned',
          evidence: [{ kind: 'liquidity', detail: 'locked' }],
        },
      ],
      actionableInsights: ['The supply is not fixed: an admin can mint and dilute holders.'],
      alerts: ['The owner can mint new tokens'],
      details: { trading_simulation: simulation },
      createdAt: new Date('2024-05-01T12:06:00.000Z'),
    },
  ]);
  await handle.db.insert(tokenHistory).values(
    Array.from({ length: 120 }, (_, i) => ({
      chainId: 1,
      address: addr(0xa001),
      bucketAt: new Date(Date.UTC(2024, 4, 1, 0, i)),
      riskScore: 10,
      priceUsd: String(1 + i / 1000),
      liquidityUsd: '250000',
      volume24hUsd: '100',
      marketCapUsd: '1000000',
    })),
  );
}

export function useApiStack(options: { seed?: boolean } = {}): ApiStack {
  const stack = { clockOverride: undefined } as ApiStack;
  const servers: Server[] = [];
  const extraRedis: ReturnType<typeof createRedis>[] = [];
  stack.clock = () => stack.clockOverride ?? new Date();

  stack.call = async (base, method, path, o = {}) => {
    clientSerial += 1;
    // Anonymous limits are per client address: each request gets a fresh one unless the test sets it.
    const headers: Record<string, string> = {
      'x-forwarded-for': `10.${(clientSerial >> 16) & 255}.${(clientSerial >> 8) & 255}.${clientSerial & 255}`,
      ...o.headers,
    };
    let body: string | undefined;
    if (o.raw !== undefined) body = o.raw;
    else if (o.body !== undefined) body = JSON.stringify(o.body);
    if (body !== undefined) headers['content-type'] = 'application/json';
    return request(`${base}${path}`, { method, headers, body });
  };
  stack.authChanged = () => bumpAuthGeneration(stack.redisA, stack.testRedis.prefix);
  stack.makeUser = async (plan, extra = {}) => {
    const email = `user${++serial}-${plan.toLowerCase()}-${process.pid}@example.com`;
    const password = `password-${serial}`;
    let user = (await stack.accounts.createUser({
      email,
      passwordHash: await hashPassword(password),
      plan,
      trialEndsAt: extra.trialEndsAt ?? null,
    }))!;
    if (extra.paymentFailedAt)
      user = (await stack.accounts.recordPaymentFailed(email, extra.paymentFailedAt))!;
    return {
      user,
      email,
      password,
      jwt: signToken(user, { secret: TEST_JWT_SECRET }, stack.clock()).token,
    };
  };
  stack.generateKey = async (base, user, limits) => {
    const result = await stack.call(base, 'POST', '/api/auth/generate-api-key', {
      headers: bearer(user.jwt),
      body: { plan: 'pro' },
    });
    const key = expectShape(S.apiKeyCreated, result, 201).api_key;
    if (limits) {
      await stack.accounts.setKeyLimits({ keyHash: sha256Hex(key) }, limits);
      await stack.authChanged();
    }
    return key;
  };

  beforeAll(async () => {
    [stack.database, stack.testRedis] = await Promise.all([
      createTestDatabase(),
      createTestRedis(),
    ]);
    stack.handle = createDb(stack.database.url, { max: stack.database.embedded ? 1 : 6 });
    stack.accounts = createAccountRepository(stack.handle.db);
    stack.tokenRepo = createTokenRepository(stack.handle.db);
    stack.redisA = createRedis(stack.testRedis.url, 'commands');
    const redisB = createRedis(stack.testRedis.url, 'commands');
    const producerConnection = createRedis(stack.testRedis.url, 'producer');
    extraRedis.push(redisB, producerConnection);
    stack.producer = createProducer(producerConnection, stack.testRedis.prefix);
    const deps = (redis: typeof redisB) =>
      testAppDeps({
        db: stack.handle.db,
        redis,
        prefix: stack.testRedis.prefix,
        knownChainIds: KNOWN_CHAINS,
        clock: stack.clock,
        producer: stack.producer,
      });
    stack.usageA = createUsageCounter({
      redis: stack.redisA,
      prefix: stack.testRedis.prefix,
      accounts: stack.accounts,
      clock: stack.clock,
      logger: silentLogger,
    });
    const appA: Express = createApp({ ...deps(stack.redisA), usage: stack.usageA });
    stack.routes = appA.locals.routes as RouteSpec[];
    const a = await listen(appA);
    const b = await listen(createApp(deps(redisB)));
    servers.push(a.server, b.server);
    stack.A = a.base;
    stack.B = b.base;
    if (options.seed !== false) await seedTokens(stack);
    stack.pro = await stack.makeUser('PRO');
    stack.proKey = await stack.generateKey(stack.A, stack.pro, HIGH_LIMITS);
  });

  afterAll(async () => {
    await Promise.all(servers.map((s) => closeServer(s)));
    await stack.usageA?.stop();
    await stack.producer?.close();
    for (const r of [stack.redisA, ...extraRedis]) r?.disconnect();
    await stack.handle?.close();
    await stack.database?.drop();
    await stack.testRedis?.cleanup();
  });

  beforeEach(() => {
    stack.clockOverride = undefined;
  });

  return stack;
}
