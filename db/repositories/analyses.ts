import { createHash } from 'node:crypto';
import { and, desc, eq, ne, sql } from 'drizzle-orm';
import type {
  RiskAssessment,
  RiskLevel,
  SecurityHints,
  TradingSimulation,
} from '../../src/analysis/types.ts';
import type { Stage } from '../../src/stages.ts';
import type { Database } from '../client.ts';
import { asRow, pipelinedTransaction, shapedStatements } from '../pipelined.ts';
import { analyses, tokens } from '../schema.ts';
import { chainLockShared } from './chain-lock.ts';
import {
  type CreatorReputation,
  creatorCountColumns,
  creatorRefreshStatement,
  reputationOf,
} from './creators.ts';
import { advancedStage, type TokenRow } from './tokens.ts';

/**
 * Analysis rows and the token columns they feed. One `analyses` row per pipeline pass of a token:
 * its input_hash is derived from (chain, address, run key), so every stage of that pass (selectors,
 * simulate, risk) upserts the same row, and a job that runs twice rewrites it rather than adding one.
 * Each stage merges its part into `details` (static, behaviour, simulation, hints).
 */

export type AnalysisRow = typeof analyses.$inferSelect;

export interface AnalysisKey {
  chainId: number;
  address: string;
  /** The pipeline pass: 'initial', or a re-run's own key (first liquidity, refresh, manual). */
  run: string;
}

/** sha256("<chain>:<address>:<run>"): the same in every stage of one pass. */
export function analysisInputHash(key: AnalysisKey): string {
  return createHash('sha256').update(`${key.chainId}:${key.address}:${key.run}`).digest('hex');
}

/** What the selectors stage derives into token columns. */
export interface StaticColumns {
  isProxy: boolean;
  implementationAddress: string | null;
  skeletonHash: string;
  template: string | null;
  ownerAddress: string | null;
}

/** The keys of `record` that hold a value (drizzle leaves undefined ones out of a statement). */
const setKeys = (record: object) =>
  Object.entries(record)
    .filter(([, v]) => v !== undefined)
    .map(([k]) => k);

/** Placeholders named after `keys`, `prefix`ed: a shaped statement's slots for those values. */
const slots = (keys: readonly string[], prefix: string) =>
  Object.fromEntries(keys.map((k) => [k, sql.placeholder(`${prefix}${k}`)]));

/** `record`'s values under their slots' names. */
const slotValues = (record: Record<string, unknown>, keys: readonly string[], prefix: string) =>
  Object.fromEntries(keys.map((k) => [`${prefix}${k}`, record[k]]));

/** The pass's row's columns set beside its details (the risk columns), as placeholders. */
const COLUMN_SLOT = 'column_';
/** The token's columns a pass sets, as placeholders. */
const TOKEN_SLOT = 'token_';

/**
 * Upserts the pass's row, merging its details patch into the row's (jsonb ||: later stages add
 * keys), with `columns` set beside them: one shape per set of columns (db/pipelined.ts).
 */
function mergeStatement(db: Database, columnKeys: readonly string[]) {
  const columns = slots(columnKeys, COLUMN_SLOT) as Partial<typeof analyses.$inferInsert>;
  return db
    .insert(analyses)
    .values({
      chainId: p.chainId as never,
      address: p.address as never,
      inputHash: p.hash as never,
      details: sql`${p.details}::jsonb`,
      ...columns,
    })
    .onConflictDoUpdate({
      target: [analyses.chainId, analyses.address, analyses.inputHash],
      set: { details: sql`${analyses.details} || excluded.details`, ...columns },
    });
}

/** The values of a `mergeStatement`. */
const mergeValues = (
  key: AnalysisKey,
  patch: Record<string, unknown>,
  columns: Record<string, unknown>,
  columnKeys: readonly string[],
) => ({
  chainId: key.chainId,
  address: key.address,
  hash: analysisInputHash(key),
  details: JSON.stringify(patch),
  ...slotValues(columns, columnKeys, COLUMN_SLOT),
});

/** What a job starts from (workers/pass-state.ts): the token and what earlier attempts recorded. */
export interface PassStart {
  token: TokenRow | undefined;
  /** The pass's own details, from an earlier attempt (undefined: none). */
  own: Record<string, unknown> | undefined;
  /** The details of the token's newest pass with a static analysis, when its own has none. */
  latestStatic: Record<string, unknown> | undefined;
}

/** The counts the risk stage scores with: the creator's other tokens, honeypot look-alikes. */
export interface RiskCounts {
  creator: CreatorReputation | null;
  similarHoneypots: number;
}

const p = {
  chainId: sql.placeholder('chainId'),
  address: sql.placeholder('address'),
  hash: sql.placeholder('hash'),
  creator: sql.placeholder('creator'),
  skeleton: sql.placeholder('skeleton'),
  details: sql.placeholder('details'),
  stage: sql.placeholder('stage'),
  updatedAt: sql.placeholder('updatedAt'),
};

/**
 * The reads of a job, each one prepared statement (one round trip once the connection knows it):
 * the token with its pass's row (and the newest static analysis, for a pass without one of its
 * own: one that starts at simulate), and the risk stage's two counts.
 */
function analysisReads(db: Database) {
  // The subqueries name the outer row as tokens.<column>: drizzle renders a column in a select's
  // fields unqualified, which inside `from analyses a` would be a's own column.
  const ofToken = and(eq(tokens.chainId, p.chainId), eq(tokens.address, p.address));
  const startQuery = db
    .select({
      token: tokens,
      own: sql<Record<string, unknown> | null>`(select a.details from analyses a
        where a.chain_id = tokens.chain_id and a.address = tokens.address and a.input_hash = ${p.hash})`,
      latestStatic: sql<Record<
        string,
        unknown
      > | null>`case when not exists (select 1 from analyses a
          where a.chain_id = tokens.chain_id and a.address = tokens.address
            and a.input_hash = ${p.hash} and a.details ? 'static')
        then (select a.details from analyses a where a.chain_id = tokens.chain_id
          and a.address = tokens.address and a.details ? 'static'
          order by a.created_at desc, a.id desc limit 1) end`,
    })
    .from(tokens)
    .where(ofToken)
    .prepare('pass_start');
  const countsQuery = db
    .select({
      ...creatorCountColumns,
      similar: sql<number>`(select count(*)::int from tokens s where s.skeleton_hash = ${p.skeleton}
        and s.is_honeypot and not (s.chain_id = ${p.chainId} and s.address = ${p.address}))`,
    })
    .from(tokens)
    .where(
      and(
        eq(tokens.chainId, p.chainId),
        eq(tokens.creator, p.creator),
        ne(tokens.address, p.address),
      ),
    )
    .prepare('risk_counts');
  return {
    /** One round trip; without the token's row, the pass's row is not looked for. */
    async passStart(key: AnalysisKey): Promise<PassStart> {
      const [row] = await startQuery.execute({
        chainId: key.chainId,
        address: key.address,
        hash: analysisInputHash(key),
      });
      return {
        token: row?.token,
        own: row?.own ?? undefined,
        latestStatic: row?.latestStatic ?? undefined,
      };
    },

    /** Both counts in one statement (null creator: none); the token never judges itself. */
    async riskCounts(
      token: { chainId: number; address: string },
      creator: string | null,
      skeleton: string | null,
    ): Promise<RiskCounts> {
      const [row] = await countsQuery.execute({ ...token, creator, skeleton });
      return {
        creator: creator
          ? reputationOf(token.chainId, creator, {
              total_tokens: row?.total ?? 0,
              scam_count: row?.scams ?? 0,
              success_count: row?.successes ?? 0,
            })
          : null,
        similarHoneypots: row?.similar ?? 0,
      };
    },

    /** The newest scored analysis of a token (the API's "latest analysis"). */
    async latestScored(chainId: number, address: string): Promise<AnalysisRow | undefined> {
      const [row] = await db
        .select()
        .from(analyses)
        .where(
          and(
            eq(analyses.chainId, chainId),
            eq(analyses.address, address),
            sql`${analyses.riskScore} is not null`,
          ),
        )
        .orderBy(desc(analyses.createdAt), desc(analyses.id))
        .limit(1);
      return row;
    },
  };
}

/** The token columns a pass sets: the static analysis's, the simulation, the score's. */
export interface PassTokenColumns extends Partial<StaticColumns> {
  tradingSimulation?: TradingSimulation;
  currentRiskScore?: number;
  currentRiskLevel?: RiskLevel;
  isHoneypot?: boolean;
  securityHints?: SecurityHints;
  riskUpdatedAt?: Date;
  /** The holders report (src/holders/report.ts), rebuilt by the risk stage. */
  holders?: unknown;
}

/** What a job writes of its pass: the stages it ran, together (workers/pass-state.ts). */
export interface PassWrite {
  /** Merged into the pass's details. */
  details: Record<string, unknown>;
  token: PassTokenColumns;
  /** The furthest stage the job ran (tokens.stage only moves forward). */
  stage: Stage;
  /** The score, once the risk stage ran: the row's risk columns. */
  assessment?: RiskAssessment;
  /** The creator whose reputation is recounted in the same transaction. */
  creator?: string | null;
}

/**
 * The pass's row, the token's columns and the creator's reputation in one transaction sent as one
 * round trip (db/pipelined.ts). The chain lock is taken only for the creator's recount (a reorg
 * rollback must not fall between its count and its write); the row and the token are upserts.
 */
function passWrites(db: Database) {
  const shaped = shapedStatements();
  const lockStatement = () => chainLockShared(p.chainId);
  const creatorStatement = () => creatorRefreshStatement(p.chainId, p.creator);
  const tokenStatement = (tokenKeys: readonly string[]) => () =>
    db
      .update(tokens)
      .set({
        ...(slots(tokenKeys, TOKEN_SLOT) as PassTokenColumns),
        stage: advancedStage(p.stage as never),
        updatedAt: p.updatedAt as never,
      })
      .where(and(eq(tokens.chainId, p.chainId), eq(tokens.address, p.address)))
      .returning();
  return {
    /**
     * Answers what a `passStart` read right after it would: the token as written and the pass's
     * details as merged (so that the stage that runs next in the job reads nothing again).
     */
    async recordPass(key: AnalysisKey, write: PassWrite): Promise<PassStart> {
      const a = write.assessment;
      const riskColumns: Record<string, unknown> = a
        ? {
            riskScore: a.score,
            riskLevel: a.level,
            riskFactors: a.risk_factors,
            actionableInsights: a.actionable_insights,
            alerts: a.alerts,
          }
        : {};
      const columnKeys = setKeys(riskColumns);
      const tokenKeys = setKeys(write.token);
      const creator = write.creator ?? null;
      const ofKey = { chainId: key.chainId, address: key.address };
      const lock = creator ? [shaped('chain_lock', lockStatement, ofKey)] : [];
      const answers = await pipelinedTransaction(db, [
        ...lock,
        shaped(
          `pass-merge:${columnKeys}`,
          () => mergeStatement(db, columnKeys).returning({ details: analyses.details }),
          mergeValues(key, { run: key.run, ...write.details }, riskColumns, columnKeys),
        ),
        shaped(`token:${tokenKeys}`, tokenStatement(tokenKeys), {
          ...ofKey,
          stage: write.stage,
          updatedAt: new Date(),
          ...slotValues(write.token as Record<string, unknown>, tokenKeys, TOKEN_SLOT),
        }),
        ...(creator ? [shaped('creator_refresh', creatorStatement, { ...ofKey, creator })] : []),
      ]);
      const [pass, token] = answers.slice(lock.length);
      const details = pass?.[0]?.details as Record<string, unknown> | string | undefined;
      return {
        token: token?.[0] ? asRow(tokens, token[0]) : undefined,
        own: typeof details === 'string' ? JSON.parse(details) : details,
        // The pass's own row has what the write merged: a static analysis when the stage had one.
        latestStatic: undefined,
      };
    },

    mergeDetails: async (key: AnalysisKey, patch: Record<string, unknown>) => {
      await pipelinedTransaction(db, [
        shaped('details-merge', () => mergeStatement(db, []), mergeValues(key, patch, {}, [])),
      ]);
    },
  };
}

/** Tokens picked by what their analyses found: due for another simulation. */
function tokenSelections(db: Database) {
  return {
    /**
     * Tokens to simulate again on the refresh cadence (docs/risk-model.md): an owner can still change their
     * fees or limits, or they are not tradable yet, and their last risk pass is older than `before`.
     * Oldest first; the refresh scheduler passes them to `resimulate`.
     */
    async dueForResimulation(
      chainId: number,
      before: Date,
      limit: number,
    ): Promise<{ address: string; riskUpdatedAt: Date | null }[]> {
      return db
        .select({ address: tokens.address, riskUpdatedAt: tokens.riskUpdatedAt })
        .from(tokens)
        .where(
          and(
            eq(tokens.chainId, chainId),
            sql`${tokens.riskUpdatedAt} < ${before.toISOString()}::timestamptz`,
            sql`(${tokens.securityHints}->>'fee_modifiable' = 'true' or ${tokens.securityHints}->>'has_max_tx_limit' = 'true' or ${tokens.securityHints}->>'trading_restricted' = 'true')`,
          ),
        )
        .orderBy(tokens.riskUpdatedAt)
        .limit(limit);
    },

    /**
     * Tokens whose real holders' sells are due again (docs/risk-model.md, "Real holders' sells"):
     * traded (some liquidity), with more than one holder, whose holder count moved since the last
     * sells were simulated (or never were), and whose last risk pass is older than `before`.
     */
    async dueForHolderSells(
      chainId: number,
      before: Date,
      limit: number,
    ): Promise<{ address: string }[]> {
      const count = sql`(${tokens.holders}->'holders'->>'holder_count')`;
      return db
        .select({ address: tokens.address })
        .from(tokens)
        .where(
          and(
            eq(tokens.chainId, chainId),
            sql`${tokens.currentLiquidityUsd} > 0`,
            sql`${tokens.riskUpdatedAt} < ${before.toISOString()}::timestamptz`,
            sql`${count}::int > 1`,
            sql`${count} is distinct from (${tokens.tradingSimulation}->'holder_sells'->>'holder_count')`,
          ),
        )
        .orderBy(tokens.riskUpdatedAt)
        .limit(limit);
    },
  };
}

export function createAnalysisRepository(db: Database) {
  return { ...analysisReads(db), ...passWrites(db), ...tokenSelections(db) };
}

export type AnalysisRepository = ReturnType<typeof createAnalysisRepository>;
