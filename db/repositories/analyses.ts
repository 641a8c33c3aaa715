import { createHash } from 'node:crypto';
import { and, desc, eq, sql } from 'drizzle-orm';
import type {
  RiskAssessment,
  SecurityHints,
  StaticAnalysis,
  TradingSimulation,
} from '../../src/analysis/types.ts';
import type { Database } from '../client.ts';
import { analyses, tokens } from '../schema.ts';
import { advancedStage } from './tokens.ts';

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

type Transaction = Parameters<Parameters<Database['transaction']>[0]>[0];

/** Upserts the pass's row, merging `patch` into its details (jsonb ||: later stages add keys). */
async function merge(
  exec: Database | Transaction,
  key: AnalysisKey,
  patch: Record<string, unknown>,
  columns: Partial<typeof analyses.$inferInsert> = {},
): Promise<void> {
  const details = JSON.stringify(patch);
  await exec
    .insert(analyses)
    .values({
      chainId: key.chainId,
      address: key.address,
      inputHash: analysisInputHash(key),
      details: sql`${details}::jsonb`,
      ...columns,
    })
    .onConflictDoUpdate({
      target: [analyses.chainId, analyses.address, analyses.inputHash],
      set: { details: sql`${analyses.details} || excluded.details`, ...columns },
    });
}

/** What the selectors stage records of a pass. */
interface StaticPart {
  static: StaticAnalysis;
  code_hash: string;
  reason: string;
  static_at: string;
  /** The explorer's answer about verified source, asked with the code analysis. */
  explorer?: { verified: boolean | null; checked_at: string };
}

/** Reads of a pass's row and of a token's newest rows. */
function analysisReads(db: Database) {
  return {
    async get(key: AnalysisKey): Promise<AnalysisRow | undefined> {
      const [row] = await db
        .select()
        .from(analyses)
        .where(
          and(
            eq(analyses.chainId, key.chainId),
            eq(analyses.address, key.address),
            eq(analyses.inputHash, analysisInputHash(key)),
          ),
        );
      return row;
    },

    /** The newest row holding `part` in its details (a re-run reuses the last static analysis). */
    async latestWith(
      chainId: number,
      address: string,
      part: 'static' | 'simulation',
    ): Promise<AnalysisRow | undefined> {
      const [row] = await db
        .select()
        .from(analyses)
        .where(
          and(
            eq(analyses.chainId, chainId),
            eq(analyses.address, address),
            sql`${analyses.details} ? ${part}`,
          ),
        )
        .orderBy(desc(analyses.createdAt), desc(analyses.id))
        .limit(1);
      return row;
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

/** Each stage's part of a pass, merged into its row with the token columns it feeds, in one transaction. */
function stageWrites(db: Database) {
  return {
    async recordStatic(key: AnalysisKey, part: StaticPart, columns: StaticColumns): Promise<void> {
      await db.transaction(async (tx) => {
        await merge(tx, key, { run: key.run, ...part });
        await tx
          .update(tokens)
          .set({ ...columns, stage: advancedStage('selectors'), updatedAt: new Date() })
          .where(and(eq(tokens.chainId, key.chainId), eq(tokens.address, key.address)));
      });
    },

    async recordSimulation(
      key: AnalysisKey,
      part: Record<string, unknown> & { simulation: TradingSimulation },
    ): Promise<void> {
      await db.transaction(async (tx) => {
        await merge(tx, key, { run: key.run, ...part });
        await tx
          .update(tokens)
          .set({
            tradingSimulation: part.simulation,
            stage: advancedStage('simulate'),
            updatedAt: new Date(),
          })
          .where(and(eq(tokens.chainId, key.chainId), eq(tokens.address, key.address)));
      });
    },

    async recordRisk(
      key: AnalysisKey,
      assessment: RiskAssessment,
      hints: SecurityHints,
      isHoneypot: boolean,
      extra: Record<string, unknown> = {},
    ): Promise<void> {
      await db.transaction(async (tx) => {
        await merge(
          tx,
          key,
          { run: key.run, security_hints: hints, ...extra },
          {
            riskScore: assessment.score,
            riskLevel: assessment.level,
            riskFactors: assessment.risk_factors,
            actionableInsights: assessment.actionable_insights,
            alerts: assessment.alerts,
          },
        );
        await tx
          .update(tokens)
          .set({
            currentRiskScore: assessment.score,
            currentRiskLevel: assessment.level,
            isHoneypot,
            securityHints: hints,
            riskUpdatedAt: new Date(),
            stage: advancedStage('risk'),
            updatedAt: new Date(),
          })
          .where(and(eq(tokens.chainId, key.chainId), eq(tokens.address, key.address)));
      });
    },

    mergeDetails: (key: AnalysisKey, patch: Record<string, unknown>) => merge(db, key, patch),
  };
}

/** Tokens picked by what their analyses found: due for another simulation, honeypot look-alikes. */
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

    /** Tokens judged honeypots whose skeleton equals `skeleton`, this token aside (any chain). */
    async honeypotsWithSkeleton(
      skeleton: string,
      except: { chainId: number; address: string },
    ): Promise<number> {
      const [row] = await db
        .select({ n: sql<number>`count(*)::int` })
        .from(tokens)
        .where(
          and(
            eq(tokens.skeletonHash, skeleton),
            eq(tokens.isHoneypot, true),
            sql`not (${tokens.chainId} = ${except.chainId} and ${tokens.address} = ${except.address})`,
          ),
        );
      return row?.n ?? 0;
    },
  };
}

export function createAnalysisRepository(db: Database) {
  return { ...analysisReads(db), ...stageWrites(db), ...tokenSelections(db) };
}

export type AnalysisRepository = ReturnType<typeof createAnalysisRepository>;
