import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../test/support/services.ts';
import { createDb, type DbHandle } from './client.ts';
import { asRow, pipelinedTransaction, shapedStatements } from './pipelined.ts';
import { createAnalysisRepository } from './repositories/analyses.ts';
import { tokens } from './schema.ts';

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
