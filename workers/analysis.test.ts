import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Queue } from 'bullmq';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Service, startService } from '../app/service.ts';
import { createDb, type DbHandle } from '../db/client.ts';
import { createAnalysisRepository } from '../db/repositories/analyses.ts';
import { createCreatorRepository } from '../db/repositories/creators.ts';
import { analyses, creators, tokens } from '../db/schema.ts';
import { silentLogger } from '../infra/logger.ts';
import { createRedis, keySpace } from '../infra/redis.ts';
import { HINT_SOURCES, type HintFlag } from '../src/analysis/risk/index.ts';
import { type RiskFactor, riskLevelOf, type TradingSimulation } from '../src/analysis/types.ts';
import { startTestChain, type TestChain, waitMined } from '../test/support/chain.ts';
import {
  createTestDatabase,
  createTestRedis,
  eventually,
  type TestDatabase,
  type TestRedis,
} from '../test/support/services.ts';
import {
  addPoolLiquidity,
  CORPUS_KIND_NAMES,
  type CorpusToken,
  deployCorpus,
  deployCorpusToken,
  FLAG_HINT,
  FLAGS,
  type Flag,
  flagScores,
  observedFlags,
} from '../test/support/token-corpus.ts';
import { createProducer } from './queues.ts';
import { HONEYPOT_ALERT_MESSAGE } from './risk.ts';

/**
 * Accuracy on real parts: the whole corpus deployed on Anvil with Uniswap V2 liquidity, found by
 * the scanner and run through detect → bytecode → selectors → simulate → risk on BullMQ with
 * Postgres and Redis; every flag compared with what each contract really does.
 */

const TAX_TOLERANCE_PCT = 0.5;
const PIPELINE_TIMEOUT_MS = 180_000;

let chain: TestChain;
let database: TestDatabase;
let redis: TestRedis;
let handle: DbHandle;
let service: Service;
let corpus: CorpusToken[];
let dry: CorpusToken;
/** A blacklisting token configured as the chain's stablecoin (the trust list), like USDT. */
let stable: CorpusToken;
/** A local Etherscan-compatible explorer: it reports verified source for these addresses only. */
let explorer: Server;
const verifiedAtExplorer = new Set<string>();
/** Addresses the explorer was asked about. */
const askedExplorer: string[] = [];

type TokenRow = typeof tokens.$inferSelect;

async function rowsAtRisk(addresses: string[]): Promise<Map<string, TokenRow>> {
  return eventually(
    async () => {
      const rows = await handle.db
        .select()
        .from(tokens)
        .where(eq(tokens.chainId, chain.anvil.chainId));
      const byAddress = new Map(rows.map((r) => [r.address, r]));
      return addresses.every((a) => byAddress.get(a)?.stage === 'risk') ? byAddress : undefined;
    },
    PIPELINE_TIMEOUT_MS,
    `${addresses.length} tokens through the risk stage`,
  );
}

/**
 * Waits until no token-stage job is waiting, running or delayed: a pass ends at risk, but its
 * DEX pass may still start a first-liquidity pass (run 'liquidity') that rewrites the token row.
 */
async function pipelineSettled(): Promise<void> {
  const queues = ['selectors', 'simulate', 'risk', 'dex'].map(
    (name) => new Queue(name, { connection: { url: redis.url }, prefix: redis.prefix }),
  );
  try {
    await eventually(
      async () => {
        const counts = await Promise.all(
          queues.map((q) => q.getJobCounts('waiting', 'active', 'delayed', 'prioritized')),
        );
        const busy = counts.flatMap((c) => Object.values(c)).some((n) => n > 0);
        return busy ? undefined : true;
      },
      PIPELINE_TIMEOUT_MS,
      'the pipeline settled',
    );
  } finally {
    await Promise.all(queues.map((q) => q.close()));
  }
}

async function latestFactors(address: string): Promise<RiskFactor[]> {
  const rows = await handle.db
    .select()
    .from(analyses)
    .where(and(eq(analyses.chainId, chain.anvil.chainId), eq(analyses.address, address)));
  const scored = rows.filter((r) => r.riskScore !== null).sort((a, b) => b.id - a.id);
  return scored[0]!.riskFactors as RiskFactor[];
}

async function streamEvents(): Promise<{ type: string; data: Record<string, unknown> }[]> {
  const client = createRedis(redis.url, 'commands');
  try {
    const entries = await client.xrange(keySpace(redis.prefix).events, '-', '+');
    return entries.map(([, fields]) => ({
      type: fields[fields.indexOf('type') + 1]!,
      data: JSON.parse(fields[fields.indexOf('data') + 1]!),
    }));
  } finally {
    client.disconnect();
  }
}

beforeAll(async () => {
  [chain, database, redis] = await Promise.all([
    startTestChain(),
    createTestDatabase(),
    createTestRedis(),
  ]);
  handle = createDb(database.url, { max: database.embedded ? 1 : 5 });
  corpus = await deployCorpus(chain);
  dry = await deployCorpusToken(chain, 'simple', 99, { liquidity: false });
  stable = await deployCorpusToken(chain, 'blacklist', 98);
  verifiedAtExplorer.add(corpus[0]!.address.toLowerCase());
  explorer = createServer((req, res) => {
    const address = new URL(req.url!, 'http://x').searchParams.get('address') ?? '';
    askedExplorer.push(address.toLowerCase());
    const source = verifiedAtExplorer.has(address.toLowerCase()) ? 'contract T {}' : '';
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ status: '1', message: 'OK', result: [{ SourceCode: source }] }));
  });
  await new Promise<void>((resolve) => explorer.listen(0, '127.0.0.1', () => resolve()));
  const explorerApiUrl = `http://127.0.0.1:${(explorer.address() as AddressInfo).port}/api`;
  service = await startService({
    roles: new Set(['worker', 'scanner']),
    databaseUrl: database.url,
    redisUrl: redis.url,
    redisPrefix: redis.prefix,
    chains: [{ ...chain.chainConfig({ stablecoins: [stable.address] }), explorerApiUrl }],
    knownChainIds: new Set([chain.anvil.chainId]),
    port: 0,
    host: '127.0.0.1',
    logger: silentLogger,
    poolMax: database.embedded ? 1 : 5,
  });
}, 300_000);

afterAll(async () => {
  await service?.stop();
  await new Promise((resolve) => explorer?.close(resolve));
  await handle?.close();
  await Promise.all([chain?.stop(), database?.drop(), redis?.cleanup()]);
});

describe('analysis pipeline on the corpus', () => {
  let rows: Map<string, TokenRow>;

  it('runs every corpus token through selectors, simulate and risk', async () => {
    rows = await rowsAtRisk([...corpus.map((t) => t.address), dry.address, stable.address]);
    expect(corpus.map((t) => t.kind).sort()).toEqual([...CORPUS_KIND_NAMES].sort());
    for (const t of corpus) {
      const row = rows.get(t.address)!;
      expect(row.currentRiskScore, t.kind).not.toBeNull();
      expect(row.skeletonHash, t.kind).toMatch(/^0x[0-9a-f]{64}$/);
      expect(row.tradingSimulation, t.kind).not.toBeNull();
    }
  });

  it.each(FLAGS)('reports %s exactly where the contract has it', (flag: Flag) => {
    const wrong = corpus
      .map((t) => ({
        kind: t.kind,
        want: t.truth[flag],
        got: observedFlags(rows.get(t.address)!)[flag],
      }))
      .filter((r) => r.want !== r.got);
    expect(
      wrong,
      `${FLAG_HINT[flag]} wrong for ${wrong.map((w) => `${w.kind} (want ${w.want})`).join(', ')}`,
    ).toEqual([]);
  });

  it('scores precision and recall 1 on every flag', () => {
    const scores = flagScores(
      corpus.map((t) => ({ truth: t.truth, observed: observedFlags(rows.get(t.address)!) })),
    );
    for (const s of scores) expect([s.flag, s.precision, s.recall]).toEqual([s.flag, 1, 1]);
  });

  it('measures taxes within half a percentage point', () => {
    for (const t of corpus) {
      const sim = rows.get(t.address)!.tradingSimulation as TradingSimulation;
      // Restricted and closed now; a max tx the owner could set to zero, or a fee it could
      // raise to the whole sale, is still open.
      if (t.truth.trading_restricted && !t.truth.max_tx && !t.truth.fee_modifiable) {
        expect(sim.is_buyable, t.kind).toBe(false);
        continue;
      }
      expect(
        Math.abs(sim.buy_tax_pct! - t.truth.buy_tax_pct),
        `${t.kind} buy tax ${sim.buy_tax_pct}`,
      ).toBeLessThanOrEqual(TAX_TOLERANCE_PCT);
      if (t.truth.sell_tax_pct !== null && !(t.truth.honeypot && t.truth.sell_tax_pct === 0)) {
        expect(
          Math.abs(sim.sell_tax_pct! - t.truth.sell_tax_pct),
          `${t.kind} sell tax ${sim.sell_tax_pct}`,
        ).toBeLessThanOrEqual(TAX_TOLERANCE_PCT);
      }
      expect(sim.transfer_tax_pct, t.kind).toBe(t.truth.transfer_tax_pct);
    }
  });

  it('verified_contract: true only where the configured explorer reports verified source', async () => {
    // Asked once per code analysis of every corpus token.
    for (const t of corpus) expect(askedExplorer).toContain(t.address.toLowerCase());
    const verified = corpus.filter(
      (t) =>
        (rows.get(t.address)!.securityHints as { explorer?: { verified?: boolean } }).explorer
          ?.verified === true,
    );
    expect(verified.map((t) => t.address.toLowerCase())).toEqual([...verifiedAtExplorer]);
  });

  it('backs every true flag with its own risk factor, which carries evidence', async () => {
    // Flags and factors of the same, last pass: a first-liquidity pass may follow the first.
    await pipelineSettled();
    const current = await rowsAtRisk(corpus.map((t) => t.address));
    let checked = 0;
    for (const t of corpus) {
      const row = current.get(t.address)!;
      const factors = await latestFactors(t.address);
      for (const f of factors) expect(f.evidence.length, `${t.kind} ${f.code}`).toBeGreaterThan(0);
      const hints = row.securityHints as Record<string, unknown>;
      for (const [name, value] of Object.entries(hints)) {
        if (value !== true) continue;
        // Every boolean flag has named sources; a flag without any would escape this check.
        expect(Object.keys(HINT_SOURCES), `${t.kind}: ${name} has no factor codes`).toContain(name);
        const sources: readonly string[] = HINT_SOURCES[name as HintFlag];
        const own = factors.filter((f) => sources.includes(f.code));
        expect(
          own.map((f) => f.code),
          `${t.kind}: ${name} is true without a ${sources.join(' or ')} factor`,
        ).not.toEqual([]);
        for (const f of own)
          expect(
            f.evidence.length,
            `${t.kind}: ${name} backed by ${f.code} without evidence`,
          ).toBeGreaterThan(0);
        checked++;
      }
    }
    // The corpus has flagged tokens: the loop above ran.
    expect(checked).toBeGreaterThan(corpus.length / 2);
  });

  it('levels: honeypots 91+, honest tokens low, capability-only tokens never honeypot', async () => {
    for (const t of corpus) {
      const row = rows.get(t.address)!;
      if (t.truth.honeypot) expect([t.kind, row.currentRiskLevel]).toEqual([t.kind, 'honeypot']);
      else expect(row.currentRiskLevel, t.kind).not.toBe('honeypot');
    }
    for (const kind of ['simple', 'renounced', 'bytes32', 'fixed-tax']) {
      const address = corpus.find((t) => t.kind === kind)!.address;
      // One account deploys the whole corpus, honeypots included, so whether the creator's record
      // already holds a honeypot when an honest token is scored depends on the order of the
      // passes. The token's own code and trades must score low; only the creator's record and
      // what the creator holds (the corpus deployer keeps what it did not pool) may add.
      const factors = await latestFactors(address);
      const byCreator = factors
        .filter((f) => f.code === 'creator-reputation' || f.code.startsWith('holders:'))
        .reduce((sum, f) => sum + f.points, 0);
      const score = rows.get(address)!.currentRiskScore!;
      expect([kind, riskLevelOf(score - byCreator)]).toEqual([kind, 'low']);
      if (byCreator <= 0)
        expect([kind, rows.get(address)!.currentRiskLevel]).toEqual([kind, 'low']);
    }
    // The wrapped native token is on the trust list: low, whatever it can do.
    expect(rows.get(chain.uniswap.weth.toLowerCase())?.currentRiskLevel).toBe('low');
  });

  it('reports but does not score the capabilities of a trusted stablecoin', async () => {
    const row = rows.get(stable.address)!;
    const twin = rows.get(corpus.find((t) => t.kind === 'blacklist')!.address)!;
    expect(row.currentRiskScore).toBe(0);
    expect(twin.currentRiskScore).toBeGreaterThan(0);
    expect((row.securityHints as { can_blacklist: boolean }).can_blacklist).toBe(true);
    const factor = (await latestFactors(stable.address)).find((f) => f.code === 'admin:blacklist')!;
    expect(factor).toMatchObject({ points: 0, severity: 'info' });
    expect(factor.evidence.length).toBeGreaterThan(0);
  });

  it('announces scores with token.updated and honeypots with an alert', async () => {
    const events = await streamEvents();
    const updated = new Set(
      events.filter((e) => e.type === 'token.updated').map((e) => e.data.contract_address),
    );
    for (const t of corpus) expect(updated.has(t.address), t.kind).toBe(true);
    const alerts = events
      .filter((e) => e.type === 'alert' && e.data.message === HONEYPOT_ALERT_MESSAGE)
      .map((e) => e.data.contract_address);
    expect(new Set(alerts)).toEqual(
      new Set(corpus.filter((t) => t.truth.honeypot).map((t) => t.address)),
    );
  });

  it("keeps the creator's reputation: honeypots count as scams, young tokens as pending", async () => {
    const [deployer] = await handle.db
      .select()
      .from(creators)
      .where(and(eq(creators.chainId, chain.anvil.chainId), eq(creators.address, chain.account)));
    const honeypots = corpus.filter((t) => t.truth.honeypot).length;
    expect(deployer).toMatchObject({ scamCount: honeypots, successCount: 0 });
    // 100 × (0 + 1) / (0 + 3 × scams + 2)
    expect(deployer!.reputationScore).toBe(Math.round(100 / (3 * honeypots + 2)));
    const counts = await createCreatorRepository(handle.db).counts(
      chain.anvil.chainId,
      chain.account,
    );
    expect(counts).toMatchObject({
      scam_count: honeypots,
      success_count: 0,
      total_tokens: deployer!.totalTokens,
    });
    const hints = rows.get(corpus[0]!.address)!.securityHints as {
      creator_reputation_score: number | null;
    };
    expect(hints.creator_reputation_score).not.toBeNull();
  });

  it('changes nothing but what new knowledge changes when every pass runs again', async () => {
    const countRows = async () =>
      (await handle.db.select().from(analyses).where(eq(analyses.chainId, chain.anvil.chainId)))
        .length;
    const queues = ['selectors', 'simulate', 'risk'].map(
      (name) => new Queue(name, { connection: { url: redis.url }, prefix: redis.prefix }),
    );
    await pipelineSettled();
    const rowsBefore = await countRows();
    const eventsBefore = (await streamEvents()).length;
    await Promise.all(queues.map((q) => q.obliterate({ force: true })));
    const connection = createRedis(redis.url, 'producer');
    const producer = createProducer(connection, redis.prefix);
    try {
      await producer.enqueueBulk(
        'selectors',
        corpus.map((t) => ({
          chainId: chain.anvil.chainId,
          address: t.address,
          reason: 'pipeline' as const,
          run: 'initial',
        })),
      );
      // The selectors job runs simulate and risk too (workers/pipeline.ts chainStages).
      await eventually(
        async () =>
          (await queues[0]!.getJobCounts('completed')).completed! >= corpus.length
            ? true
            : undefined,
        PIPELINE_TIMEOUT_MS,
        'second pass',
      );
    } finally {
      await producer.close();
      connection.disconnect();
      await Promise.all(queues.map((q) => q.close()));
    }
    // The same pass upserts its row; an alert already raised is never raised again.
    expect(await countRows()).toBe(rowsBefore);
    const events = await streamEvents();
    const raised = new Set(
      events
        .slice(0, eventsBefore)
        .filter((e) => e.type === 'alert')
        .map((e) => e.data.alert_key),
    );
    const fresh = events.slice(eventsBefore);
    for (const e of fresh) {
      if (e.type === 'alert') {
        // New knowledge only: the holders sequencer may have caught up with a token since its
        // first pass (holder_concentration); a verdict alert (honeypot) was raised then.
        expect(e.data.type).toBe('holder_concentration');
        expect(raised.has(e.data.alert_key)).toBe(false);
        continue;
      }
      // token.updated only where the score moved (the creator's reputation now counts every honeypot).
      expect(e.type).toBe('token.updated');
      expect(
        (e.data.previous as { current_risk_score: number | null }).current_risk_score,
      ).not.toBe(e.data.current_risk_score);
    }
    const again = await rowsAtRisk(corpus.map((t) => t.address));
    for (const t of corpus)
      expect([t.kind, observedFlags(again.get(t.address)!)]).toEqual([
        t.kind,
        observedFlags(rows.get(t.address)!),
      ]);
  });

  it('lists for re-simulation exactly the tokens whose fees, limits or trading can still change', async () => {
    const due = await createAnalysisRepository(handle.db).dueForResimulation(
      chain.anvil.chainId,
      new Date(Date.now() + 3_600_000),
      1_000,
    );
    const kinds = new Set(due.map((d) => corpus.find((t) => t.address === d.address)?.kind));
    const changeable = corpus
      .filter((t) => t.truth.fee_modifiable || t.truth.max_tx || t.truth.trading_restricted)
      .map((t) => t.kind);
    expect([...kinds].filter((k) => k !== undefined).sort()).toEqual(changeable.sort());
  });

  it("says 'no liquidity' for a token without a pool, and simulates it once liquidity appears", async () => {
    const before = rows.get(dry.address)!;
    expect((before.tradingSimulation as TradingSimulation).error).toBe('no liquidity');
    await addPoolLiquidity(chain, dry.address);
    await service.resimulate(chain.anvil.chainId, dry.address, 'liquidity');
    const after = await eventually(
      async () => {
        const [row] = await handle.db
          .select()
          .from(tokens)
          .where(and(eq(tokens.chainId, chain.anvil.chainId), eq(tokens.address, dry.address)));
        const sim = row?.tradingSimulation as TradingSimulation | null;
        return sim && sim.error === null && row!.riskUpdatedAt! > before.riskUpdatedAt!
          ? row
          : undefined;
      },
      60_000,
      'resimulation after liquidity',
    );
    expect(after.tradingSimulation).toMatchObject({
      is_buyable: true,
      is_sellable: true,
      is_honeypot: false,
    });
    // Its code and trades score low; its small test pool, what its creator holds (the holders
    // sequencer may have caught up by now) and the creator's record may add.
    const scored = (await latestFactors(dry.address)).filter((f) => (f.points ?? 0) > 0);
    expect(
      scored.map((f) => f.code).filter((c) => !/^(holders:|creator-reputation|liquidity-)/.test(c)),
    ).toEqual([]);
    if (scored.length === 0) expect(after.currentRiskLevel).toBe('low');
    const passes = await handle.db
      .select()
      .from(analyses)
      .where(and(eq(analyses.chainId, chain.anvil.chainId), eq(analyses.address, dry.address)));
    // The initial pass, this re-run, and (with the DEX stage running) its own first-liquidity pass.
    expect(passes.length).toBeGreaterThanOrEqual(2);
    expect(passes.length).toBeLessThanOrEqual(3);
    // The re-run reused the initial pass's static analysis.
    for (const p of passes) expect((p.details as { static?: unknown }).static).toBeDefined();
  });

  it('announces a tax change with token.updated even when the score stays put', async () => {
    const taxed = corpus.find((t) => t.kind === 'tax')!;
    const raisedSellBps = 1_500;
    const eventsBefore = (await streamEvents()).length;
    const fees = chain.contract('TaxToken', taxed.address);
    await waitMined(chain.provider, fees.getFunction('setFees')(500, raisedSellBps));
    await service.resimulate(chain.anvil.chainId, taxed.address, 'refresh');
    const announced = await eventually(
      async () =>
        (await streamEvents())
          .slice(eventsBefore)
          .find(
            (e) =>
              e.type === 'token.updated' &&
              e.data.contract_address === taxed.address &&
              (e.data.changes as string[]).includes('taxes'),
          ),
      60_000,
      'token.updated for the raised tax',
    );
    const sim = announced.data.trading_simulation as TradingSimulation;
    expect(Math.abs(sim.sell_tax_pct! - raisedSellBps / 100)).toBeLessThanOrEqual(
      TAX_TOLERANCE_PCT,
    );
  });
});
