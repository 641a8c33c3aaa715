import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reputationScore, tokenOutcome } from '../../src/analysis/risk/index.ts';
import { createTestDatabase, type TestDatabase } from '../../test/support/services.ts';
import { createDb, type DbHandle } from '../client.ts';
import { creators, tokens } from '../schema.ts';
import { createCreatorRepository, reputationScoreSql } from './creators.ts';
import { createTokenRepository } from './tokens.ts';

/** The SQL counts mirror tokenOutcome() exactly, on real Postgres. */

const CHAIN = 31337;
const CREATOR = '0x00000000000000000000000000000000000c0de1';
const HOUR = 3_600_000;

let database: TestDatabase;
let handle: DbHandle;

const cases = [
  { name: 'young', hours: 2, score: 10, honeypot: false, sellable: true },
  { name: 'success', hours: 30, score: 10, honeypot: false, sellable: true },
  { name: 'success-medium', hours: 30, score: 60, honeypot: false, sellable: true },
  { name: 'high-risk', hours: 30, score: 70, honeypot: false, sellable: true },
  { name: 'honeypot', hours: 30, score: 100, honeypot: true, sellable: false },
  { name: 'not-analysed', hours: 30, score: null, honeypot: null, sellable: null },
  { name: 'untradable', hours: 30, score: 10, honeypot: false, sellable: false },
  { name: 'pulled', hours: 30, score: 10, honeypot: false, sellable: true, pulled: true },
];

const addressOf = (i: number) => `0x${(i + 1).toString(16).padStart(40, '0')}`;

beforeAll(async () => {
  database = await createTestDatabase();
  handle = createDb(database.url, { max: 1 });
  const repo = createTokenRepository(handle.db);
  for (const [i, c] of cases.entries()) {
    await repo.upsertDetected({
      chainId: CHAIN,
      address: addressOf(i),
      name: c.name,
      symbol: 'T',
      decimals: 18,
      totalSupply: '1',
      creationTxHash: null,
      creator: CREATOR,
      creatorIsContract: false,
      txOrigin: null,
      creationBlockNumber: null,
      creationBlockHash: null,
      creationTimestamp: new Date(Date.now() - c.hours * HOUR),
      creationGasUsed: null,
      detectionSource: 'submitted',
    });
    await handle.db
      .update(tokens)
      .set({
        currentRiskScore: c.score,
        isHoneypot: c.honeypot,
        tradingSimulation: c.sellable === null ? null : { is_sellable: c.sellable },
      })
      .where(and(eq(tokens.chainId, CHAIN), eq(tokens.address, addressOf(i))));
  }
}, 60_000);

afterAll(async () => {
  await handle?.close();
  await database?.drop();
});

describe('creator repository', () => {
  it('counts exactly what tokenOutcome decides', async () => {
    const repo = createCreatorRepository(handle.db);
    await repo.recordLiquidityPulled(CHAIN, addressOf(cases.findIndex((c) => c.name === 'pulled')));
    const rows = await handle.db.select().from(tokens).where(eq(tokens.creator, CREATOR));
    const outcomes = rows.map((r) =>
      tokenOutcome({
        isHoneypot: r.isHoneypot,
        liquidityPulledAt: r.liquidityPulledAt,
        riskScore: r.currentRiskScore,
        bornAt: r.creationTimestamp ?? r.detectedAt,
        tradable: (r.tradingSimulation as { is_sellable?: boolean } | null)?.is_sellable === true,
        isActivelyTraded: r.isActivelyTraded,
      }),
    );
    const expected = {
      total_tokens: rows.length,
      success_count: outcomes.filter((o) => o === 'success').length,
      scam_count: outcomes.filter((o) => o === 'scam').length,
    };
    expect(expected).toEqual({ total_tokens: 8, success_count: 2, scam_count: 2 });
    expect(await repo.counts(CHAIN, CREATOR)).toEqual(expected);
    const [row] = await handle.db.select().from(creators).where(eq(creators.address, CREATOR));
    expect(row).toMatchObject({
      totalTokens: 8,
      successCount: 2,
      scamCount: 2,
      reputationScore: reputationScore(expected),
    });
  });

  it('leaves the judged token out of its own reputation, and is idempotent', async () => {
    const repo = createCreatorRepository(handle.db);
    const honeypot = addressOf(cases.findIndex((c) => c.name === 'honeypot'));
    expect(await repo.reputationExcluding(CHAIN, CREATOR, honeypot)).toMatchObject({
      total_tokens: 7,
      scam_count: 1,
      success_count: 2,
    });
    const once = await repo.refresh(CHAIN, CREATOR);
    expect(await repo.refresh(CHAIN, CREATOR)).toEqual(once);
    const pulled = addressOf(cases.findIndex((c) => c.name === 'pulled'));
    const [before] = await handle.db.select().from(tokens).where(eq(tokens.address, pulled));
    await repo.recordLiquidityPulled(CHAIN, pulled);
    const [after] = await handle.db.select().from(tokens).where(eq(tokens.address, pulled));
    expect(after!.liquidityPulledAt).toEqual(before!.liquidityPulledAt);
    expect(
      await repo.recordLiquidityPulled(CHAIN, '0x000000000000000000000000000000000000beef'),
    ).toBeNull();
  });

  it('scores in SQL as reputationScore does, for every count up to 60', async () => {
    const rows = (await handle.db.execute(
      sql`select s, x, ${reputationScoreSql(sql`s`, sql`x`)} as score
        from generate_series(0, 60) s, generate_series(0, 60) x`,
    )) as unknown as { s: number; x: number; score: number }[];
    expect(rows).toHaveLength(61 * 61);
    const wrong = rows.filter(
      (r) => r.score !== reputationScore({ success_count: r.s, scam_count: r.x }),
    );
    expect(wrong).toEqual([]);
  });
});
