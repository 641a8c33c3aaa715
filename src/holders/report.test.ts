import { describe, expect, it } from 'vitest';
import {
  type HolderFacts,
  type HolderRoles,
  holdersReport,
  lpHoldersReport,
  percentOf,
} from './report.ts';

const a = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
const TOKEN = a(1);
const CREATOR = a(2);
const PAIR = a(3);
const LOCKER = a(4);
const DEAD = '0x000000000000000000000000000000000000dead';

const roles: HolderRoles = {
  token: TOKEN,
  creator: CREATOR,
  creatorIsContract: false,
  owner: CREATOR,
  pairs: new Set([PAIR]),
  lockers: new Map([[LOCKER, 'unicrypt']]),
};

describe('holdersReport', () => {
  it('tags holders, shares the supply and sums the top ten outside pools', () => {
    const top = [
      { holder: PAIR, balance: 500n, isContract: null },
      { holder: CREATOR, balance: 200n, isContract: false },
      { holder: DEAD, balance: 100n, isContract: null },
      ...Array.from({ length: 12 }, (_, i) => ({
        holder: a(100 + i),
        balance: 10n - BigInt(i % 3),
        isContract: i === 0,
      })),
    ];
    const facts: HolderFacts = {
      holderCount: 15,
      supply: 1000n,
      top,
      balancesOf: new Map([
        [PAIR, 500n],
        [CREATOR, 200n],
        [DEAD, 100n],
      ]),
      contractBalance: 510n,
    };
    const report = holdersReport(facts, roles, { block: 42, complete: true });
    expect(report.holder_count).toBe(15);
    expect(report.top_holders).toHaveLength(10);
    expect(report.top_holders.slice(0, 3).map((h) => [h.tag, h.percent, h.is_contract])).toEqual([
      ['pair', 50, true],
      ['creator', 20, false],
      ['burn', 10, null],
    ]);
    expect(report.creator_percent).toBe(20);
    expect(report.owner_percent).toBe(20);
    expect(report.burned_percent).toBe(10);
    expect(report.pools_percent).toBe(50);
    expect(report.contract_percent).toBe(51);
    // Creator 200 plus the nine largest others (10, 9, 8, 10, 9, 8, 10, 9, 8) of the free float.
    expect(report.top10_outside_pools_percent).toBe(percentOf(200n + 81n, 1000n));
    expect(report).toMatchObject({ block: 42, complete: true });
  });

  it('splits LP tokens into locked, burned, creator and other', () => {
    const lp = lpHoldersReport(
      { address: PAIR, dex: 'uniswap-v2' },
      {
        holderCount: 4,
        supply: 1000n,
        top: [{ holder: LOCKER, balance: 600n, isContract: null }],
        balancesOf: new Map([
          [LOCKER, 600n],
          [DEAD, 100n],
          [CREATOR, 250n],
        ]),
        contractBalance: 600n,
      },
      roles,
    );
    expect(lp).toMatchObject({
      locked_percent: 60,
      burned_percent: 10,
      creator_percent: 25,
      other_percent: 5,
      holder_count: 4,
    });
    expect(lp.top_holders[0]).toMatchObject({ tag: 'locker', is_contract: true });
  });
});
