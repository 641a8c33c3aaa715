import { z } from 'zod';

/**
 * The holder parts of the token object (docs/api.md): `holders`, `lp_holders`, `holder_sells`
 * and `impersonates`, read leniently from what the stages stored (tokens.holders, the simulation's
 * holder_sells, the risk stage's hints). A part not measured yet is null (lp_holders: empty).
 */

const tag = z.enum(['pair', 'locker', 'burn', 'token', 'creator', 'owner']).nullable().catch(null);
const holderRow = z.object({
  address: z.string(),
  balance: z.string(),
  percent: z.number(),
  is_contract: z.boolean().nullable().catch(null),
  tag,
});
const maybePercent = z.number().nullable().catch(null);

const storedHolders = z.object({
  holder_count: z.number(),
  top_holders: z.array(holderRow).catch([]),
  creator_percent: maybePercent,
  owner_percent: maybePercent,
  contract_percent: z.number().catch(0),
  burned_percent: z.number().catch(0),
  pools_percent: z.number().catch(0),
  top10_outside_pools_percent: z.number().catch(0),
  block: z.number().nullable().catch(null),
  complete: z.boolean().catch(false),
});

const storedLp = z.object({
  pair_address: z.string(),
  dex: z.string(),
  holder_count: z.number(),
  locked_percent: z.number(),
  burned_percent: z.number(),
  creator_percent: z.number(),
  other_percent: z.number(),
  top_holders: z.array(holderRow).catch([]),
});

const storedReport = z.object({
  holders: storedHolders.nullable().catch(null),
  lp_holders: z.array(storedLp).catch([]),
});

export function holdersView(value: unknown) {
  const parsed = storedReport.safeParse(value ?? null);
  const report = parsed.success ? parsed.data : { holders: null, lp_holders: [] };
  return { holders: report.holders, lp_holders: report.lp_holders };
}
export type HoldersView = ReturnType<typeof holdersView>;

const storedSells = z.object({
  tried: z.number(),
  failed: z.number(),
  average_tax_pct: z.number().nullable().catch(null),
  max_tax_pct: z.number().nullable().catch(null),
  block: z.number().nullable().catch(null),
  failures: z.array(z.object({ address: z.string(), reason: z.string() })).catch([]),
  siphoned: z
    .array(z.object({ address: z.string(), tracked_balance: z.string(), balance: z.string() }))
    .catch([]),
});

/** The real holders' sells of the simulation (trading_simulation.holder_sells as stored). */
export function holderSellsView(simulation: unknown) {
  const stored = (simulation as { holder_sells?: unknown } | null | undefined)?.holder_sells;
  const parsed = storedSells.safeParse(stored ?? null);
  if (!parsed.success) return null;
  const s = parsed.data;
  return {
    tried: s.tried,
    failed: s.failed,
    average_tax_pct: s.average_tax_pct,
    max_tax_pct: s.max_tax_pct,
    block: s.block,
    failures: s.failures.map((f) => ({ address: f.address, reason: f.reason })),
    siphoned: s.siphoned.map((x) => ({
      address: x.address,
      tracked_balance: x.tracked_balance,
      balance: x.balance,
    })),
  };
}
export type HolderSellsView = ReturnType<typeof holderSellsView>;

const storedImpersonation = z.object({
  symbol: z.string(),
  canonical_address: z.string(),
  matched: z.enum(['symbol', 'name']).catch('symbol'),
});

/** The well-known token this one pretends to be (security_hints.impersonates as stored), or null. */
export function impersonatesView(hints: unknown) {
  const stored = (hints as { impersonates?: unknown } | null | undefined)?.impersonates;
  const parsed = storedImpersonation.safeParse(stored ?? null);
  if (!parsed.success) return null;
  return {
    symbol: parsed.data.symbol,
    canonical_address: parsed.data.canonical_address,
    matched: parsed.data.matched,
  };
}
export type ImpersonatesView = ReturnType<typeof impersonatesView>;
