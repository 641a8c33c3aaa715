import { and, asc, eq, gt, sql } from 'drizzle-orm';
import type { HolderFacts } from '../../src/holders/report.ts';
import type { Database } from '../client.ts';
import { holderBalances, holderTracks, pairs } from '../schema.ts';
import { LIVE_TRACK, REPLAY_TRACK } from './holder-sequencer.ts';

/**
 * The holder reads of every analysis pass (the simulate stage's sell candidates, the risk stage's
 * holders report), each one prepared statement: once a connection knows it, one round trip, where
 * an unprepared query with parameters costs two (its description first). Address lists go as one
 * array parameter, so that the statement's text is the same whatever their length.
 */

const p = {
  chainId: sql.placeholder('chainId'),
  token: sql.placeholder('token'),
  addresses: sql.placeholder('addresses'),
  limit: sql.placeholder('limit'),
};

export function holderReads(db: Database) {
  const ofToken = and(eq(holderBalances.chainId, p.chainId), eq(holderBalances.token, p.token));
  const positive = gt(holderBalances.balance, '0');
  const largestFirst = [sql`${holderBalances.balance} desc`, asc(holderBalances.holder)] as const;
  const tracksQuery = db
    .select()
    .from(holderTracks)
    .where(eq(holderTracks.chainId, p.chainId))
    .prepare('holder_tracks');
  const totalsQuery = db
    .select({
      n: sql<number>`count(*) filter (where ${holderBalances.balance} > 0)`.mapWith(Number),
      supply: sql<string>`coalesce(sum(${holderBalances.balance}) filter (where ${holderBalances.balance} > 0), 0)::text`,
      contracts: sql<string>`coalesce(sum(${holderBalances.balance}) filter (where ${holderBalances.balance} > 0 and (${holderBalances.isContract} or ${holderBalances.holder} = any(${p.addresses}::text[]))), 0)::text`,
    })
    .from(holderBalances)
    .where(ofToken)
    .prepare('holder_totals');
  const topQuery = db
    .select({
      holder: holderBalances.holder,
      balance: holderBalances.balance,
      isContract: holderBalances.isContract,
    })
    .from(holderBalances)
    .where(and(ofToken, positive))
    .orderBy(...largestFirst)
    .limit(p.limit)
    .prepare('holder_top');
  const namedQuery = db
    .select({ holder: holderBalances.holder, balance: holderBalances.balance })
    .from(holderBalances)
    .where(and(ofToken, sql`${holderBalances.holder} = any(${p.addresses}::text[])`))
    .prepare('holder_named');
  const candidatesQuery = db
    .select({ holder: holderBalances.holder, balance: holderBalances.balance })
    .from(holderBalances)
    .where(
      and(
        ofToken,
        positive,
        sql`${holderBalances.holder} <> all(${p.addresses}::text[])`,
        sql`not exists (select 1 from ${pairs} where ${pairs.chainId} = ${holderBalances.chainId} and ${pairs.address} = ${holderBalances.holder})`,
      ),
    )
    .orderBy(...largestFirst)
    .limit(p.limit)
    .prepare('holder_sell_candidates');
  const countQuery = db
    .select({ n: sql<number>`count(*)`.mapWith(Number) })
    .from(holderBalances)
    .where(and(ofToken, positive))
    .prepare('holder_count');

  return {
    /** Both tracks of a chain (live, replay), null where absent. */
    async tracks(chainId: number) {
      const rows = await tracksQuery.execute({ chainId });
      return {
        live: rows.find((r) => r.track === LIVE_TRACK) ?? null,
        replay: rows.find((r) => r.track === REPLAY_TRACK) ?? null,
      };
    },

    /**
     * The balances a holders report is made of (src/holders/report.ts): count and sum of the
     * positive balances, the largest `topN`, the named addresses' balances, and the sum held by
     * `contracts` or by holders the simulate stage found to have code. Three reads, in parallel.
     */
    async facts(
      chainId: number,
      token: string,
      named: { addresses: readonly string[]; contracts: readonly string[] },
      topN: number,
    ): Promise<HolderFacts> {
      const at = { chainId, token };
      const [[totals], top, rows] = await Promise.all([
        totalsQuery.execute({ ...at, addresses: [...named.contracts] }),
        topQuery.execute({ ...at, limit: topN }),
        named.addresses.length === 0
          ? Promise.resolve([])
          : namedQuery.execute({ ...at, addresses: [...named.addresses] }),
      ]);
      return {
        holderCount: totals?.n ?? 0,
        supply: BigInt(totals?.supply ?? '0'),
        top: top.map((t) => ({
          holder: t.holder,
          balance: BigInt(t.balance),
          isContract: t.isContract,
        })),
        balancesOf: new Map(rows.map((r) => [r.holder, BigInt(r.balance)])),
        contractBalance: BigInt(totals?.contracts ?? '0'),
      };
    },

    /**
     * The largest holders whose sells are worth simulating: not `exclude` (creator, owner, lockers,
     * burn addresses, the token), not a pool of the chain; and how many holders the token has.
     */
    async sellCandidates(
      chainId: number,
      token: string,
      exclude: readonly string[],
      limit: number,
    ): Promise<{ holders: { holder: string; balance: bigint }[]; holderCount: number }> {
      const at = { chainId, token };
      const [rows, [count]] = await Promise.all([
        candidatesQuery.execute({ ...at, addresses: [...exclude], limit }),
        countQuery.execute(at),
      ]);
      return {
        holders: rows.map((r) => ({ holder: r.holder, balance: BigInt(r.balance) })),
        holderCount: count?.n ?? 0,
      };
    },
  };
}
