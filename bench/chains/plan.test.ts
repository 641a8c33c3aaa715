import { describe, expect, it } from 'vitest';
import { type ChainContracts, createBlockPlanner, type PlannedTx } from './plan.ts';
import {
  CHAIN_PROFILES,
  chainProfile,
  creationsPerBlock,
  TOKEN_KINDS,
  type TxKind,
} from './profiles.ts';

const address = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
const CONTRACTS: ChainContracts = {
  weth: address(1),
  v2Factory: address(2),
  v3Factory: address(3),
  v2Router: address(4),
  v3Helper: address(5),
  v3Pool: address(6),
  wethIsToken0: true,
  established: address(7),
  tokenFactory: address(8),
  upgradeableImpl: address(9),
  senders: [address(10), address(11), address(12)],
};

function countKinds(blocks: { kind: TxKind }[][]) {
  const counts = new Map<TxKind, number>();
  for (const block of blocks)
    for (const tx of block) counts.set(tx.kind, (counts.get(tx.kind) ?? 0) + 1);
  return counts;
}

describe('the block planner', () => {
  it('fills every block to the chain’s transaction count at full scale', () => {
    for (const profile of CHAIN_PROFILES) {
      const planner = createBlockPlanner(profile, CONTRACTS, {
        txScale: 1,
        tokenFloorPerMinute: 0,
      });
      for (let i = 0; i < 20; i++) {
        const block = planner.next();
        // A burst may overfill a small block (Arbitrum's 10): never underfill.
        expect(block.length).toBeGreaterThanOrEqual(profile.txPerBlock);
      }
    }
  });

  it('creates tokens at the real rate when it is above the floor, and at the floor otherwise', () => {
    const bsc = chainProfile('bsc');
    const minutes = 10;
    const blocks = (minutes * 60_000) / bsc.blockTimeMs;
    const plan = (floor: number) => {
      const planner = createBlockPlanner({ ...bsc, burstEverySeconds: 1e9 }, CONTRACTS, {
        txScale: 0.1,
        tokenFloorPerMinute: floor,
      });
      const counts = countKinds(Array.from({ length: blocks }, () => planner.next()));
      return (counts.get('token-deploy') ?? 0) + (counts.get('factory-token') ?? 0);
    };
    const real = creationsPerBlock(bsc).tokens * blocks;
    expect(Math.abs(plan(0) - real)).toBeLessThanOrEqual(1);
    expect(plan(600)).toBe(600 * minutes);
  });

  it('sends a burst of factory tokens once per burst interval, and trades in the profile’s shares', () => {
    const base = chainProfile('base');
    const planner = createBlockPlanner(base, CONTRACTS, { txScale: 1, tokenFloorPerMinute: 0 });
    const blocks = Array.from({ length: 300 }, () => planner.next()); // 600 s of Base
    const bursts = blocks.filter(
      (b) => b.filter((tx) => tx.kind === 'factory-token').length >= base.burstTokens,
    );
    // Blocks at 0…598 s cross 30, 60, …, 570 s.
    expect(bursts.length).toBe(600 / base.burstEverySeconds - 1);
    const counts = countKinds(blocks);
    const trades = ['native-transfer', 'token-transfer', 'v2-swap', 'v3-swap'] as const;
    const total = trades.reduce((s, k) => s + (counts.get(k) ?? 0), 0);
    const shares = [base.mix.native, base.mix.token, base.mix.v2, base.mix.v3];
    for (const [i, k] of trades.entries())
      expect((counts.get(k) ?? 0) / total).toBeCloseTo(shares[i]!, 1);
    // Creations never leave the plan: every token kind appears.
    for (const kind of TOKEN_KINDS) expect(counts.get(kind)).toBeGreaterThan(0);
    expect(counts.get('contract-deploy')).toBeGreaterThan(0);
  });

  it('pays a pool of recurring payees when given one, and plans nothing else differently', () => {
    const bsc = chainProfile('bsc');
    const scale = { txScale: 1, tokenFloorPerMinute: 12 };
    const fresh = createBlockPlanner(bsc, CONTRACTS, scale);
    const pooled = createBlockPlanner(bsc, CONTRACTS, { ...scale, payees: 50 });
    const payeeOf = (tx: PlannedTx) =>
      tx.kind === 'native-transfer'
        ? tx.to!
        : tx.kind === 'token-transfer'
          ? `0x${tx.data.slice(10 + 24, 10 + 64)}`
          : undefined;
    const seen = { fresh: new Set<string>(), pooled: new Set<string>() };
    let payments = 0;
    for (let i = 0; i < 40; i++) {
      const a = fresh.next();
      const b = pooled.next();
      // The same transactions but for their payees.
      expect(b.map((tx) => [tx.kind, tx.from, tx.value, tx.data.length])).toEqual(
        a.map((tx) => [tx.kind, tx.from, tx.value, tx.data.length]),
      );
      for (const [j, tx] of a.entries()) {
        const payee = payeeOf(tx);
        if (payee === undefined) {
          expect(b[j]).toEqual(tx);
          continue;
        }
        payments++;
        seen.fresh.add(payee);
        seen.pooled.add(payeeOf(b[j]!)!);
      }
    }
    expect(payments).toBeGreaterThan(1_000);
    expect(seen.fresh.size).toBe(payments);
    expect(seen.pooled.size).toBe(50);
  });

  it('is deterministic for a seed', () => {
    const a = createBlockPlanner(
      chainProfile('polygon'),
      CONTRACTS,
      { txScale: 0.5, tokenFloorPerMinute: 10 },
      7,
    );
    const b = createBlockPlanner(
      chainProfile('polygon'),
      CONTRACTS,
      { txScale: 0.5, tokenFloorPerMinute: 10 },
      7,
    );
    for (let i = 0; i < 5; i++) expect(a.next()).toEqual(b.next());
  });
});
