import { and, count, desc, eq, getTableColumns, inArray, isNull, sql } from 'drizzle-orm';
import { STAGE_ORDER, type Stage } from '../../src/stages.ts';
import type { Database } from '../client.ts';
import { blockHashes, creators, pairs, tokens } from '../schema.ts';
import { lockChainShared } from './chain-lock.ts';
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
      return db.transaction(async (tx) => {
        if (await isOrphaned(tx, token.chainId, token.creationBlockNumber, token.creationBlockHash))
          return { status: 'orphaned' as const };
        const [row] = await tx
          .insert(tokens)
          .values(token)
          .onConflictDoUpdate({
            target: [tokens.chainId, tokens.address],
            set: KEEP_FIRST_CREATION,
          })
          // xmax = 0 only for a freshly inserted row version: tells insert from update in one round trip.
          .returning({ ...getTableColumns(tokens), inserted: sql<boolean>`(xmax = 0)` });
        if (!row) throw new Error('upsert returned no row');
        const { inserted, ...saved } = row;
        if (inserted && token.creator) {
          await tx
            .insert(creators)
            .values({ chainId: token.chainId, address: token.creator, totalTokens: 1 })
            .onConflictDoUpdate({
              target: [creators.chainId, creators.address],
              set: { totalTokens: sql`${creators.totalTokens} + 1`, lastSeen: sql`now()` },
            });
        }
        return {
          status: 'recorded' as const,
          inserted,
          announced: saved.announcedAt !== null,
          row: saved,
        };
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

    async markAnnounced(chainId: number, address: string): Promise<void> {
      await db
        .update(tokens)
        .set({ announcedAt: new Date() })
        .where(
          and(eq(tokens.chainId, chainId), eq(tokens.address, address), isNull(tokens.announcedAt)),
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
