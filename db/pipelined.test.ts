import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../test/support/services.ts';
import { createDb, type DbHandle } from './client.ts';
import {
  asRow,
  pipelinedTransaction,
  pipelinedTransactionIf,
  shapedStatements,
} from './pipelined.ts';
import { createAnalysisRepository } from './repositories/analyses.ts';
import { createTokenRepository, type DetectedToken } from './repositories/tokens.ts';
import { blockHashes, creators, tokens } from './schema.ts';

/** The one-round-trip transaction keeps a transaction's promises, on real Postgres. */

let database: TestDatabase;
let handle: DbHandle;

const creatorCount = async () => {
  const [row] = (await handle.db.execute(
    sql`select count(*)::int as n from creators where chain_id = 7`,
  )) as unknown as { n: number }[];
  return row!.n;
};

beforeAll(async () => {
  database = await createTestDatabase();
  // One connection: the failed transaction must leave it usable, outside any transaction.
  handle = createDb(database.url, { max: 1 });
}, 60_000);

afterAll(async () => {
  await handle?.close();
  await database?.drop();
});

describe('pipelinedTransaction', () => {
  it('answers each statement’s rows, later statements seeing earlier writes', async () => {
    const [inserted, counted] = await pipelinedTransaction(handle.db, [
      sql`insert into creators (chain_id, address) values (7, ${'0xa'}) returning address`,
      sql`select count(*)::int as n from creators where chain_id = 7`,
    ]);
    expect(inserted).toEqual([{ address: '0xa' }]);
    expect(counted).toEqual([{ n: 1 }]);
  });

  it('writes nothing when a statement fails, and rejects with its error', async () => {
    const before = await creatorCount();
    await expect(
      pipelinedTransaction(handle.db, [
        sql`insert into creators (chain_id, address) values (7, ${'0xb'})`,
        sql`select 1 / ${0}::int`,
        sql`insert into creators (chain_id, address) values (7, ${'0xc'})`,
      ]),
    ).rejects.toThrow(/division by zero/);
    expect(await creatorCount()).toBe(before);
    // The connection is back in the pool outside any transaction: this write commits.
    await pipelinedTransaction(handle.db, [
      sql`insert into creators (chain_id, address) values (7, ${'0xd'})`,
    ]);
    expect(await creatorCount()).toBe(before + 1);
  });
});

describe('pipelinedTransactionIf', () => {
  const write = (address: string, keep: (rows: Record<string, unknown>[][]) => boolean) =>
    pipelinedTransactionIf(
      handle.db,
      [
        sql`insert into creators (chain_id, address) values (7, ${address}) returning address`,
        sql`select count(*)::int as n from creators where chain_id = 7`,
      ],
      keep,
    );

  it('commits when its statements answered what it wants, and rolls back when not', async () => {
    const before = await creatorCount();
    const kept = await write('0xe1', ([, counted]) => counted?.[0]?.n === before + 1);
    expect(kept).toEqual([[{ address: '0xe1' }], [{ n: before + 1 }]]);
    expect(await creatorCount()).toBe(before + 1);
    expect(await write('0xe2', () => false)).toBeNull();
    expect(await creatorCount()).toBe(before + 1);
  });

  it('rolls back when the judgement throws, and leaves the connection outside any transaction', async () => {
    const before = await creatorCount();
    await expect(
      write('0xe3', () => {
        throw new Error('judged badly');
      }),
    ).rejects.toThrow('judged badly');
    expect(await creatorCount()).toBe(before);
    await pipelinedTransaction(handle.db, [
      sql`insert into creators (chain_id, address) values (7, ${'0xe4'})`,
    ]);
    expect(await creatorCount()).toBe(before + 1);
  });
});

describe('asRow', () => {
  it('maps a returned row as drizzle maps its own reads (dates, bigint numbers, jsonb)', async () => {
    const address = '0x00000000000000000000000000000000000000a1';
    await handle.db.insert(tokens).values({
      chainId: 7,
      address,
      name: 'Row',
      creationBlockNumber: 12_345,
      creationTimestamp: new Date('2026-01-02T03:04:05.678Z'),
      detectionSource: 'submitted',
    });
    const [returned] = await pipelinedTransaction(handle.db, [
      handle.db
        .update(tokens)
        .set({ securityHints: { nested: { ok: true } }, currentLiquidityUsd: '12.5' })
        .where(and(eq(tokens.chainId, 7), eq(tokens.address, address)))
        .returning(),
    ]);
    const [read] = await handle.db
      .select()
      .from(tokens)
      .where(and(eq(tokens.chainId, 7), eq(tokens.address, address)));
    const row = asRow(tokens, returned![0]!);
    expect(row).toEqual(read);
    expect(row.creationTimestamp).toBeInstanceOf(Date);
    expect(row.creationBlockNumber).toBe(12_345);
    expect(row.securityHints).toEqual({ nested: { ok: true } });
  });
});

describe('shapedStatements', () => {
  it('renders a shape once and fills each call’s values through the columns’ encoders', async () => {
    const address = '0x00000000000000000000000000000000000000a2';
    await handle.db
      .insert(tokens)
      .values({ chainId: 7, address, name: 'Shaped', detectionSource: 'submitted' });
    const shaped = shapedStatements();
    let builds = 0;
    const update = () => {
      builds++;
      return handle.db
        .update(tokens)
        .set({
          securityHints: sql.placeholder('hints') as never,
          riskUpdatedAt: sql.placeholder('at') as never,
        })
        .where(and(eq(tokens.chainId, 7), eq(tokens.address, sql.placeholder('address'))))
        .returning();
    };
    const write = (hints: unknown, at: Date) =>
      pipelinedTransaction(handle.db, [shaped('hints', update, { hints, address, at })]);
    await write({ first: 1 }, new Date('2026-01-01T00:00:00.000Z'));
    const [returned] = await write({ second: [2] }, new Date('2026-02-03T04:05:06.789Z'));
    expect(builds).toBe(1);
    const row = asRow(tokens, returned![0]!);
    expect(row.securityHints).toEqual({ second: [2] });
    expect(row.riskUpdatedAt).toEqual(new Date('2026-02-03T04:05:06.789Z'));
  });

  it('names the placeholder a call leaves without a value', () => {
    const shaped = shapedStatements();
    expect(() => shaped('one', () => sql`select ${sql.placeholder('missing')}::int`, {})).toThrow(
      /missing/,
    );
  });
});

const PASS_CHAIN = 31337;
const passAddress = (i: number) => `0x${(i + 0xb0).toString(16).padStart(40, '0')}`;

describe('the pass writes (shaped statements of db/repositories/analyses.ts)', () => {
  it('answer the merged details after a details-only merge ran first in the same repository', async () => {
    const analyses = createAnalysisRepository(handle.db);
    await handle.db.insert(tokens).values(
      [0, 1].map((i) => ({
        chainId: PASS_CHAIN,
        address: passAddress(i),
        name: `T${i}`,
        detectionSource: 'submitted' as const,
      })),
    );
    // A 'no code' pass merges details without asking for them back; a selectors write after it
    // must still get its own row's details (the simulate stage of its job starts from them).
    await analyses.mergeDetails(
      { chainId: PASS_CHAIN, address: passAddress(0), run: 'initial' },
      { error: 'no code' },
    );
    const start = await analyses.recordPass(
      { chainId: PASS_CHAIN, address: passAddress(1), run: 'initial' },
      {
        details: { static: { marker: 1 } },
        token: {
          isProxy: false,
          implementationAddress: null,
          skeletonHash: '0x1',
          template: null,
          ownerAddress: null,
        },
        stage: 'selectors',
      },
    );
    expect(start.own).toEqual({ run: 'initial', static: { marker: 1 } });
    expect(start.token?.stage).toBe('selectors');
    expect(start.token?.skeletonHash).toBe('0x1');
    // A later write of the same pass merges into the row and answers both parts.
    const again = await analyses.recordPass(
      { chainId: PASS_CHAIN, address: passAddress(1), run: 'initial' },
      { details: { security_hints: { ok: true } }, token: {}, stage: 'risk' },
    );
    expect(again.own).toEqual({
      run: 'initial',
      static: { marker: 1 },
      security_hints: { ok: true },
    });
    expect(again.token?.stage).toBe('risk');
  });
});

const DETECT_CHAIN = 31338;
const detected = (i: number, block: number, hash: string, creator: string): DetectedToken => ({
  chainId: DETECT_CHAIN,
  address: `0x${(i + 0xc0).toString(16).padStart(40, '0')}`,
  name: `D${i}`,
  symbol: `D${i}`,
  decimals: 18,
  totalSupply: '1000',
  creationTxHash: `0x${i.toString(16).padStart(64, '0')}`,
  creator,
  creatorIsContract: true,
  txOrigin: creator,
  creationBlockNumber: block,
  creationBlockHash: hash,
  creationTimestamp: new Date('2026-12-01T00:00:00.000Z'),
  creationGasUsed: 100_000,
  detectionSource: 'trace',
});

describe("the detected tokens' write (upsertDetectedMany, db/repositories/tokens.ts)", () => {
  const factory = '0x00000000000000000000000000000000000fac01';
  const deployer = '0x00000000000000000000000000000000000dec02';
  const countOf = async (address: string) => {
    const [row] = await handle.db
      .select({ n: creators.totalTokens })
      .from(creators)
      .where(and(eq(creators.chainId, DETECT_CHAIN), eq(creators.address, address)));
    return row?.n;
  };

  it('records a batch with its rows, counts each creator’s new tokens once, and refuses an orphaned block’s', async () => {
    const repo = createTokenRepository(handle.db);
    await handle.db.insert(blockHashes).values({
      chainId: DETECT_CHAIN,
      blockNumber: 100,
      blockHash: '0xaa',
      parentHash: '0x99',
      timestamp: new Date(),
    });
    const batch = [
      detected(0, 100, '0xaa', factory),
      detected(1, 100, '0xaa', factory),
      detected(2, 101, '0xab', deployer),
      // The same address twice in one batch: one row, counted once.
      detected(1, 100, '0xaa', factory),
    ];
    const first = await repo.upsertDetectedMany(DETECT_CHAIN, batch);
    expect(first.map((o) => o.status === 'recorded' && o.inserted)).toEqual([
      true,
      true,
      true,
      true,
    ]);
    const recorded = first[2]!;
    expect(recorded.status === 'recorded' && recorded.row).toMatchObject({
      address: batch[2]!.address,
      name: 'D2',
      creationBlockNumber: 101,
      creationTimestamp: new Date('2026-12-01T00:00:00.000Z'),
      announcedAt: null,
    });
    expect([await countOf(factory), await countOf(deployer)]).toEqual([2, 1]);

    // Seen again (a retried job): nothing new, nothing counted twice.
    const again = await repo.upsertDetectedMany(DETECT_CHAIN, batch.slice(0, 3));
    expect(again.map((o) => o.status === 'recorded' && o.inserted)).toEqual([false, false, false]);
    expect([await countOf(factory), await countOf(deployer)]).toEqual([2, 1]);

    // Block 100 is now another block than the one these tokens came from: refused; block 102 kept.
    const mixed = await repo.upsertDetectedMany(DETECT_CHAIN, [
      detected(3, 100, '0xbb', factory),
      detected(4, 102, '0xac', factory),
    ]);
    expect(mixed.map((o) => o.status)).toEqual(['orphaned', 'recorded']);
    const stored = await handle.db
      .select({ address: tokens.address })
      .from(tokens)
      .where(eq(tokens.chainId, DETECT_CHAIN));
    expect(stored.map((r) => r.address).sort()).toEqual(
      [0, 1, 2, 4].map((i) => detected(i, 0, '', '').address),
    );
    expect(await countOf(factory)).toBe(3);
  });
});
