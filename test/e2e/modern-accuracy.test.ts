import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestChain, type TestChain } from '../support/chain.ts';
import {
  compileModernBuild,
  compileProxies,
  loadModernSet,
  MODERN_BUILDS,
  type ModernResult,
  runModernBuild,
  scoreModernSet,
} from '../support/modern-set.ts';
import type { Compiled } from '../support/solc.ts';

/**
 * Accuracy on tokens written today: the modern development set of test/fixtures/modern (OpenZeppelin
 * 5 `_update` overrides, Solady, solmate, ERC-7201 and OpenZeppelin 4 upgradeable ownership,
 * AccessControl, UUPS and transparent proxies), every token under every build (solc 0.8.20 to
 * 0.8.30, optimizer on and off, via-IR on and off), deployed on Anvil and analysed as the
 * selectors and risk stages do. Goal: no honest twin has a power it lacks (precision
 * 1.0 on mint, leak and limit) and recall ≥ 0.98, asserted on every result; each miss is printed.
 * `npm run bench -- --only accuracy` prints the full table beside the old development set.
 */

const MIN_RECALL = 0.98;
const MIN_PRECISION = 1;
/** A cold compile of the five builds (via-IR above all) takes minutes; the disk cache makes it seconds. */
const COMPILE_TIMEOUT_MS = 40 * 60_000;
const RUN_TIMEOUT_MS = 10 * 60_000;

const manifest = loadModernSet();
let chain: TestChain;
let proxies: Record<string, Compiled>;
const builds = new Map<string, Map<string, Compiled>>();
const results: ModernResult[] = [];

beforeAll(async () => {
  proxies = await compileProxies(manifest);
  for (const b of MODERN_BUILDS) builds.set(b.label, await compileModernBuild(manifest, b));
  chain = await startTestChain();
}, COMPILE_TIMEOUT_MS);
afterAll(async () => chain?.stop());

describe('the modern development set', () => {
  it('pairs every backdoored token with an honest twin of the same family', () => {
    const byName = new Map(manifest.tokens.map((t) => [t.contract, t]));
    for (const t of manifest.tokens) {
      const backdoored = Object.values(t.labels).some(Boolean);
      if (!backdoored) continue;
      const twin = t.twin ? byName.get(t.twin) : undefined;
      expect(twin, `${t.contract} has a twin`).toBeDefined();
      expect(Object.values(twin!.labels).some(Boolean), `${t.twin} is honest`).toBe(false);
      expect(twin!.family).toBe(t.family);
    }
  });

  it.each(MODERN_BUILDS.map((b) => [b.label, b] as const))(
    '%s: every token placed and analysed',
    async (_label, build) => {
      const placed = await runModernBuild(
        chain,
        manifest,
        build,
        builds.get(build.label)!,
        proxies,
      );
      const expected = manifest.tokens.filter((t) => builds.get(build.label)!.has(t.contract));
      expect(placed.map((r) => r.name)).toEqual(expected.map((t) => t.contract));
      results.push(...placed);
    },
    RUN_TIMEOUT_MS,
  );

  it(`precision ${MIN_PRECISION} and recall ≥ ${MIN_RECALL} on mint, leak and limit`, () => {
    expect(results.length).toBeGreaterThan(0);
    const scores = scoreModernSet(results);
    for (const [i, s] of scores.all.entries()) {
      const named = scores.named[i]!;
      console.log(
        `modern ${s.label}: tp ${s.tp} fp ${s.fp} fn ${s.fn} precision ${s.precision.toFixed(3)} recall ${s.recall.toFixed(3)}; ` +
          `names only F1 ${named.f1.toFixed(3)}`,
      );
    }
    for (const m of scores.misses) console.log(`${m.kind} ${m.label}: ${m.id}`);
    for (const s of scores.all) {
      expect.soft(s.precision, `${s.label} precision`).toBeGreaterThanOrEqual(MIN_PRECISION);
      expect.soft(s.recall, `${s.label} recall`).toBeGreaterThanOrEqual(MIN_RECALL);
    }
  });

  it('reports external_call exactly for the tokens whose owner can swap the deciding contract', () => {
    for (const r of results)
      expect.soft(r.externalCall, `${r.id} external_call`).toBe(r.token.external_call === true);
  });
});
