import { and, count, desc, eq, getTableColumns, inArray, isNull, sql } from 'drizzle-orm';
import { STAGE_ORDER, type Stage } from '../../src/stages.ts';
import type { Database } from '../client.ts';
import { asRow, pipelinedTransactionIf, type Rendered } from '../pipelined.ts';
import { blockHashes, creators, pairs, tokens } from '../schema.ts';
import { chainLockShared, lockChainShared } from './chain-lock.ts';
import type { TokenRow } from './rows.ts';
import { detailQueries } from './token-details.ts';
import { listQueries } from './token-list.ts';

export type { AnalysisRow, CreatorRow, HistoryRow, TokenKey, TokenRow } from './rows.ts';
export { historiesQuery, tokenKey } from './token-details.ts';
export {
  EXACT_TOTAL_LIMIT,
  type ListCursor,
  TOKEN_SORT_FIELDS,
  type TokenListPageRow,
  type TokenListQuery,
  type TokenListRow,
  type TokenSortField,
  type TokenSummaryRow,
} from './token-list.ts';

export interface DetectedToken {
  chainId: number;
  address: string;
  name: string | null;
  symbol: string | null;
  decimals: number | null;
  /** Null when totalSupply() is routed by the dispatcher but reverted at first sight. */
  totalSupply: string | null;
  creationTxHash: string | null;
  creator: string | null;
  creatorIsContract: boolean | null;
  txOrigin: string | null;
  creationBlockNumber: number | null;
  creationBlockHash: string | null;
  creationTimestamp: Date | null;
  creationGasUsed: number | null;
  detectionSource: string;
}

export interface DetectedPair {
  chainId: number;
  address: string;
  dex: string;
  factory: string | null;
  token0: string;
  token1: string;
  creationBlockNumber: number | null;
  creationTxHash: string | null;
  /** Not stored: checked against the scanner's record of the canonical chain. */
  creationBlockHash: string | null;
}

export type UpsertOutcome =
  | { status: 'recorded'; inserted: boolean; announced: boolean; row: TokenRow }
  /** The block left the canonical chain (a reorg): nothing was written. */
  | { status: 'orphaned' };

type Tx = Parameters<Parameters<Database['transaction']>[0]>[0];

/**
 * A write from a block that the scanner has since replaced is refused. The shared chain lock
 * orders this check against a reorg rollback, which holds the lock exclusively while it swaps
 * the block hashes and deletes what the orphaned blocks produced.
 */
/** Whether the block recorded at `blockNumber` is another one than `blockHash` (taken under the chain's shared lock). */
export async function isOrphaned(
  tx: Tx,
  chainId: number,
  blockNumber: number | null,
  blockHash: string | null,
): Promise<boolean> {
  if (blockNumber === null || blockHash === null) return false;
  await lockChainShared(tx, chainId);
  const [other] = await tx
    .select({ h: blockHashes.blockHash })
    .from(blockHashes)
    .where(and(eq(blockHashes.chainId, chainId), eq(blockHashes.blockNumber, blockNumber)));
  return other !== undefined && other.h !== blockHash;
}

/** Block numbers whose recorded hash differs from the one these tokens were detected in. */
async function orphanedBlocks(
  tx: Tx,
  chainId: number,
  batch: readonly DetectedToken[],
): Promise<Set<number>> {
  const numbers = [
    ...new Set(
      batch.flatMap((t) => (t.creationBlockNumber === null ? [] : [t.creationBlockNumber])),
    ),
  ];
  if (numbers.length === 0) return new Set();
  // The shared chain lock orders this check against a reorg rollback (exclusive).
  await lockChainShared(tx, chainId);
  const recorded = await tx
    .select({ n: blockHashes.blockNumber, h: blockHashes.blockHash })
    .from(blockHashes)
    .where(and(eq(blockHashes.chainId, chainId), inArray(blockHashes.blockNumber, numbers)));
  const hashOf = new Map(recorded.map((r) => [r.n, r.h]));
  const orphaned = new Set<number>();
  for (const t of batch) {
    const n = t.creationBlockNumber;
    if (n === null || t.creationBlockHash === null) continue;
    const other = hashOf.get(n);
    if (other !== undefined && other !== t.creationBlockHash) orphaned.add(n);
  }
  return orphaned;
}

/**
 * One row per address (a contract redeployed at the same address keeps its first sighting), in
 * address order so that concurrent batches lock rows in the same order.
 */
function firstPerAddress(batch: readonly DetectedToken[]): DetectedToken[] {
  const unique = new Map<string, DetectedToken>();
  for (const t of batch) if (!unique.has(t.address)) unique.set(t.address, t);
  return [...unique.values()].sort((a, b) => (a.address < b.address ? -1 : 1));
}

/**
 * `upsertDetectedMany` in two round trips when none of the batch's blocks is orphaned (the rule):
 * the chain lock, the orphan check and one statement that upserts the tokens and counts the new
 * ones on their creators, pipelined; then COMMIT, or ROLLBACK and undefined when a block was
 * orphaned (the caller then writes token by token). A block of 50 factory tokens took six round
 * trips here, each behind the analysis' queries during a burst (docs/scale.md, back-pressure).
 */
async function upsertUnlessOrphaned(
  db: Database,
  chainId: number,
  batch: readonly DetectedToken[],
): Promise<UpsertOutcome[] | undefined> {
  const blocks = new Map<number, string>();
  for (const t of batch) {
    if (t.creationBlockNumber === null || t.creationBlockHash === null) continue;
    // Two blocks at one height (a batch across a reorg): one of them is orphaned.
    if ((blocks.get(t.creationBlockNumber) ?? t.creationBlockHash) !== t.creationBlockHash)
      return undefined;
    blocks.set(t.creationBlockNumber, t.creationBlockHash);
  }
  const answers = await pipelinedTransactionIf(
    db,
    [
      chainLockShared(chainId),
      sql`select b.block_number from ${blockHashes} b
        join unnest(${sql.param([...blocks.keys()])}::bigint[], ${sql.param([...blocks.values()])}::text[]) as v(n, h)
          on b.block_number = v.n
        where b.chain_id = ${chainId} and b.block_hash <> v.h
        limit 1`,
      upsertCountingCreators(db, chainId, firstPerAddress(batch)),
    ],
    ([, orphaned]) => orphaned!.length === 0,
  );
  if (!answers) return undefined;
  const byAddress = new Map(
    answers[2]!.map((raw) => [raw.address as string, { row: asRow(tokens, raw), raw }] as const),
  );
  return batch.map((t): UpsertOutcome => {
    const saved = byAddress.get(t.address)!;
    return {
      status: 'recorded',
      inserted: saved.raw.inserted === true,
      announced: saved.row.announcedAt !== null,
      row: saved.row,
    };
  });
}

/**
 * One statement: the tokens upserted (first creation data kept) and, in a CTE over what that
 * returned, each creator's count raised by the tokens it inserted (not those already known).
 */
function upsertCountingCreators(db: Database, chainId: number, rows: DetectedToken[]): Rendered {
  const upsert = db
    .insert(tokens)
    .values(rows)
    .onConflictDoUpdate({ target: [tokens.chainId, tokens.address], set: KEEP_FIRST_CREATION })
    // xmax = 0 only for a freshly inserted row version: tells insert from update.
    .returning({ ...getTableColumns(tokens), inserted: sql<boolean>`(xmax = 0)`.as('inserted') })
    .toSQL();
  const chain = `$${upsert.params.length + 1}`;
  return {
    sql: `with saved as (${upsert.sql}), counted as (
      insert into creators (chain_id, address, total_tokens)
      select ${chain}::int, creator, count(*)::int from saved
      where inserted and creator is not null group by creator order by creator
      on conflict (chain_id, address) do update
        set total_tokens = creators.total_tokens + excluded.total_tokens, last_seen = now()
    ) select * from saved`,
    params: [...upsert.params, chainId],
  };
}

/** SQL for `stage` advanced to `to` unless it is already there or beyond. */
export function advancedStage(to: Stage) {
  const order = sql.raw(`array[${STAGE_ORDER.map((s) => `'${s}'`).join(',')}]::text[]`);
  return sql`case when coalesce(array_position(${order}, ${tokens.stage}), 0) < array_position(${order}, ${to}::text) then ${to}::text else ${tokens.stage} end`;
}

/** Creation data fills gaps but never overwrites what an earlier sighting recorded. */
const keepFirst = (column: string) =>
  sql.raw(`coalesce("tokens"."${column}", excluded."${column}")`);

/** The conflict update of every detection write: a second sighting adds only missing creation data. */
export const KEEP_FIRST_CREATION = {
  creationTxHash: keepFirst('creation_tx_hash'),
  creator: keepFirst('creator'),
  creatorIsContract: keepFirst('creator_is_contract'),
  txOrigin: keepFirst('tx_origin'),
  creationBlockNumber: keepFirst('creation_block_number'),
  creationBlockHash: keepFirst('creation_block_hash'),
  creationTimestamp: keepFirst('creation_timestamp'),
  creationGasUsed: keepFirst('creation_gas_used'),
};

/** Recording what the scanner and users submit: tokens and pairs, refused when orphaned. */
function detectionWrites(db: Database) {
  return {
    /**
     * Idempotent: a second detection of the same token changes nothing but missing creation data.
     * The creator's token count moves only when the token row is new, in the same transaction.
     */
    async upsertDetected(token: DetectedToken): Promise<UpsertOutcome> {
      const [outcome] = await this.upsertDetectedMany(token.chainId, [token]);
      return outcome!;
    },

    /**
     * `upsertDetected` for every token of a detect job or replay segment (one chain), in a few
     * statements; outcomes in the order given. One transaction per token would queue them behind
     * each other on their creator's row (a factory creates many tokens) and cost five round trips
     * per token. Tokens of a block the scanner has since replaced are refused (`orphaned`).
     */
    async upsertDetectedMany(
      chainId: number,
      batch: readonly DetectedToken[],
    ): Promise<UpsertOutcome[]> {
      if (batch.length === 0) return [];
      // As a rule no block of the batch is orphaned: then one pipelined write and its commit.
      const written = await upsertUnlessOrphaned(db, chainId, batch);
      if (written) return written;
      return db.transaction(async (tx) => {
        const orphaned = await orphanedBlocks(tx, chainId, batch);
        const rows = firstPerAddress(
          batch.filter(
            (t) => t.creationBlockNumber === null || !orphaned.has(t.creationBlockNumber),
          ),
        );
        const saved =
          rows.length === 0
            ? []
            : await tx
                .insert(tokens)
                .values(rows)
                .onConflictDoUpdate({
                  target: [tokens.chainId, tokens.address],
                  set: KEEP_FIRST_CREATION,
                })
                // xmax = 0 only for a freshly inserted row version: tells insert from update.
                .returning({ ...getTableColumns(tokens), inserted: sql<boolean>`(xmax = 0)` });
        const perCreator = new Map<string, number>();
        for (const row of saved)
          if (row.inserted && row.creator)
            perCreator.set(row.creator, (perCreator.get(row.creator) ?? 0) + 1);
        if (perCreator.size > 0) {
          const counts = [...perCreator].sort(([a], [b]) => (a < b ? -1 : 1));
          await tx
            .insert(creators)
            .values(counts.map(([address, n]) => ({ chainId, address, totalTokens: n })))
            .onConflictDoUpdate({
              target: [creators.chainId, creators.address],
              set: {
                totalTokens: sql`${creators.totalTokens} + excluded.total_tokens`,
                lastSeen: sql`now()`,
              },
            });
        }
        const byAddress = new Map(saved.map((r) => [r.address, r]));
        return batch.map((t): UpsertOutcome => {
          const row = byAddress.get(t.address);
          if (!row) return { status: 'orphaned' };
          const { inserted, ...stored } = row;
          return {
            status: 'recorded',
            inserted,
            announced: stored.announcedAt !== null,
            row: stored,
          };
        });
      });
    },

    /** A token submitted by a user (refresh or analyze of an unknown contract): no creation data. */
    async upsertSubmitted(token: {
      chainId: number;
      address: string;
      name: string | null;
      symbol: string | null;
      decimals: number | null;
      totalSupply: string | null;
    }) {
      const outcome = await this.upsertDetected({
        ...token,
        creationTxHash: null,
        creator: null,
        creatorIsContract: null,
        txOrigin: null,
        creationBlockNumber: null,
        creationBlockHash: null,
        creationTimestamp: null,
        creationGasUsed: null,
        detectionSource: 'submitted',
      });
      // Without a creation block there is nothing a reorg could orphan.
      if (outcome.status !== 'recorded') throw new Error('a submitted token cannot be orphaned');
      return outcome;
    },

    async upsertPair(pair: DetectedPair): Promise<'recorded' | 'orphaned'> {
      return db.transaction(async (tx) => {
        if (await isOrphaned(tx, pair.chainId, pair.creationBlockNumber, pair.creationBlockHash))
          return 'orphaned';
        const { creationBlockHash: _checkedOnly, ...row } = pair;
        await tx.insert(pairs).values(row).onConflictDoNothing();
        return 'recorded';
      });
    },
  };
}

/** Single-token reads and the stage updates the pipeline makes. */
function tokenLookups(db: Database) {
  return {
    async get(chainId: number | undefined, address: string): Promise<TokenRow | undefined> {
      const where =
        chainId === undefined
          ? eq(tokens.address, address)
          : and(eq(tokens.chainId, chainId), eq(tokens.address, address));
      const [row] = await db
        .select()
        .from(tokens)
        .where(where)
        .orderBy(desc(tokens.detectedAt))
        .limit(1);
      return row;
    },

    /** Which of these addresses are already recorded as a token or a pair. */
    async knownAddresses(chainId: number, addresses: string[]): Promise<Set<string>> {
      if (addresses.length === 0) return new Set();
      const [t, p] = await Promise.all([
        db
          .select({ a: tokens.address })
          .from(tokens)
          .where(and(eq(tokens.chainId, chainId), inArray(tokens.address, addresses))),
        db
          .select({ a: pairs.address })
          .from(pairs)
          .where(and(eq(pairs.chainId, chainId), inArray(pairs.address, addresses))),
      ]);
      return new Set([...t, ...p].map((r) => r.a));
    },

    async countByChain(chainId: number): Promise<number> {
      const [row] = await db.select({ n: count() }).from(tokens).where(eq(tokens.chainId, chainId));
      return row?.n ?? 0;
    },

    /** After their token.created was published: a retried detection does not announce them again. */
    async markAnnounced(chainId: number, addresses: readonly string[]): Promise<void> {
      if (addresses.length === 0) return;
      await db
        .update(tokens)
        .set({ announcedAt: new Date() })
        .where(
          and(
            eq(tokens.chainId, chainId),
            inArray(tokens.address, [...addresses]),
            isNull(tokens.announcedAt),
          ),
        );
    },

    async updateBytecode(
      chainId: number,
      address: string,
      facts: { bytecodeHash: string; codeLength: number; proxyLike: boolean },
    ) {
      await db
        .update(tokens)
        .set({ ...facts, stage: advancedStage('bytecode'), updatedAt: new Date() })
        .where(and(eq(tokens.chainId, chainId), eq(tokens.address, address)));
    },
  };
}

export function createTokenRepository(db: Database) {
  return {
    ...detectionWrites(db),
    ...tokenLookups(db),
    ...listQueries(db),
    ...detailQueries(db),
  };
}

export type TokenRepository = ReturnType<typeof createTokenRepository>;
