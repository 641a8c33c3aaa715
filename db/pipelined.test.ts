import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../test/support/services.ts';
import { createDb, type DbHandle } from './client.ts';
import { asRow, pipelinedTransaction } from './pipelined.ts';
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
