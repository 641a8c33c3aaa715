import { id } from 'ethers';
import { describe, expect, it } from 'vitest';
import { PROOF_FAMILIES } from '../access/index.ts';
import type { BehaviourFinding } from '../simulation/index.ts';
import type {
  AccessControl,
  AdminFamily,
  AdminFunction,
  OwnershipInfo,
  StaticAnalysis,
  TradingSimulation,
} from '../types.ts';
import { deriveHints, evidenceFor, HINT_SOURCES, type HintFlag } from './hints.ts';
import {
  assessRisk,
  FAMILY_POINTS,
  HONEYPOT_MIN_SCORE,
  LEVEL_FLOORS,
  NON_HONEYPOT_MAX_SCORE,
  type RiskInput,
  WEIGHTS,
} from './risk.ts';

/** The pure scoring: weights, caps, trust list, evidence behind every factor and flag. */

const OWNER = '0x1111111111111111111111111111111111111111';
const ZERO = '0x0000000000000000000000000000000000000000';

const fn = (
  family: AdminFamily,
  name: string,
  access: AccessControl = 'owner-only',
): AdminFunction => ({
  name,
  signature: `${name}(address,uint256)`,
  selector: name
    .padEnd(8, '0')
    .slice(0, 8)
    .replace(/[^0-9a-f]/g, 'a'),
  family,
  risk_level: 'high',
  description: name,
  access_control: access,
  evidence: [{ kind: 'function', detail: `${name} checks msg.sender against the stored owner` }],
});

const ownership = (o: Partial<OwnershipInfo> = {}): OwnershipInfo => ({
  owner: OWNER,
  owner_source: 'owner()',
  renounced: false,
  hidden_owner: null,
  fake_renounce: false,
  evidence: [{ kind: 'call', detail: `owner() returns ${o.owner ?? OWNER}` }],
  ...o,
});

const staticOf = (s: Partial<StaticAnalysis> = {}): StaticAnalysis => ({
  functions: [],
  admin_functions: [],
  ownership: ownership(),
  proxy: { is_proxy: false, kind: null, implementation: null, admin: null, evidence: [] },
  skeleton_hash: '0xabc',
  template: null,
  ...s,
});

const sim = (
  s: Partial<TradingSimulation & { honeypot_reason: string | null }> = {},
): TradingSimulation & { honeypot_reason: string | null } => ({
  is_buyable: true,
  is_sellable: true,
  buy_tax_pct: 0,
  sell_tax_pct: 0,
  transfer_tax_pct: 0,
  max_tx_amount: null,
  simulated_at: '2025-01-01T00:00:00.000Z',
  error: null,
  is_honeypot: false,
  honeypot_reason: null,
  amounts: [
    {
      amount_in_wei: '1000',
      buy_ok: true,
      sell_ok: true,
      transfer_ok: true,
      buy_tax_pct: 0,
      sell_tax_pct: 0,
      transfer_tax_pct: 0,
      gas_buy: 1,
      gas_sell: 1,
      gas_transfer: 1,
      error: null,
    },
  ],
  ...s,
});

const input = (i: Partial<RiskInput> = {}): RiskInput => ({
  trusted: false,
  static: staticOf(),
  behaviour: [],
  simulation: sim(),
  similarHoneypots: 0,
  ...i,
});

function expectExplained(i: RiskInput) {
  const assessment = assessRisk(i);
  for (const f of assessment.risk_factors) expect(f.evidence.length, f.code).toBeGreaterThan(0);
  const hints = deriveHints({
    assessment,
    static: i.static,
    behaviour: i.behaviour,
    creator: i.creator,
    liquidity: i.liquidity,
  });
  for (const flag of Object.keys(HINT_SOURCES) as HintFlag[]) {
    if (hints[flag]) expect(evidenceFor(assessment, flag).length, flag).toBeGreaterThan(0);
  }
  return { assessment, hints };
}

describe('assessRisk', () => {
  it('scores an honest, simulated token 0 (low)', () => {
    const { assessment, hints } = expectExplained(
      input({ static: staticOf({ template: 'openzeppelin-erc20' }) }),
    );
    expect(assessment).toMatchObject({ score: 0, level: 'low', alerts: [] });
    expect(Object.values(hints).filter((v) => v === true)).toEqual([]);
  });

  it('makes a simulated honeypot 91 or more, with an alert and an insight', () => {
    const { assessment } = expectExplained(
      input({
        simulation: sim({ is_sellable: false, is_honeypot: true, honeypot_reason: 'sell failed' }),
      }),
    );
    expect(assessment.score).toBeGreaterThanOrEqual(HONEYPOT_MIN_SCORE);
    expect(assessment.level).toBe('honeypot');
    expect(assessment.alerts[0]).toContain('Honeypot');
    expect(assessment.actionable_insights[0]).toMatch(/Do not buy/);
  });

  it('caps capability alone at 90: only simulated behaviour makes a honeypot', () => {
    const every = (Object.keys(FAMILY_POINTS) as AdminFamily[]).map((f) => fn(f, f));
    const { assessment } = expectExplained(
      input({ static: staticOf({ admin_functions: every }), similarHoneypots: 5 }),
    );
    expect(assessment.score).toBe(NON_HONEYPOT_MAX_SCORE);
    expect(assessment.level).toBe('high');
  });

  it('does not score owner-only functions after a real renounce, but still does after a fake one', () => {
    const mint = fn('mint', 'mint');
    const renounced = expectExplained(
      input({
        static: staticOf({
          admin_functions: [mint],
          ownership: ownership({ owner: ZERO, renounced: true }),
        }),
      }),
    );
    expect(renounced.assessment.score).toBe(0);
    expect(renounced.hints).toMatchObject({
      is_mintable: false,
      ownership_renounced: true,
      owner_address: null,
    });
    const fake = expectExplained(
      input({
        static: staticOf({
          admin_functions: [mint],
          ownership: ownership({
            owner: ZERO,
            renounced: true,
            fake_renounce: true,
            hidden_owner: OWNER,
            hidden_owner_selectors: [mint.selector],
          }),
        }),
      }),
    );
    expect(fake.assessment.score).toBe(FAMILY_POINTS.mint + WEIGHTS.hiddenOwner);
    expect(fake.hints).toMatchObject({
      is_mintable: true,
      hidden_owner: true,
      ownership_renounced: false,
      owner_address: OWNER,
    });
  });

  it('a pending owner beside a live owner proves nothing; after a renounce it is a way back', () => {
    const PENDING = '0x2222222222222222222222222222222222222222';
    const accept = fn('ownership-transfer', 'accept');
    const mint = fn('mint', 'mint');
    const pending = (o: Partial<OwnershipInfo>) =>
      input({
        static: staticOf({
          admin_functions: [accept, mint],
          ownership: ownership({
            hidden_owner: PENDING,
            hidden_owner_selectors: [accept.selector],
            ...o,
          }),
        }),
      });
    const live = expectExplained(pending({}));
    expect(live.hints).toMatchObject({ hidden_owner: false, owner_address: OWNER });
    expect(live.assessment.level).toBe('medium');
    const back = expectExplained(pending({ owner: ZERO, renounced: true, fake_renounce: true }));
    expect(back.hints).toMatchObject({
      hidden_owner: true,
      ownership_renounced: false,
      is_mintable: true,
      owner_address: PENDING,
    });
  });

  it('turns a behaviour finding by a non-owner into a hidden owner', () => {
    const finding: BehaviourFinding = {
      selector: 'deadbeef',
      arguments: 'address,uint256',
      family: 'mint',
      caller: OWNER,
      caller_role: 'creator',
      detail: 'balance +99',
    };
    const { assessment, hints } = expectExplained(
      input({
        static: staticOf({ ownership: ownership({ owner: ZERO, renounced: true }) }),
        behaviour: [finding],
      }),
    );
    expect(hints).toMatchObject({
      is_mintable: true,
      hidden_owner: true,
      ownership_renounced: false,
      owner_address: OWNER,
    });
    expect(assessment.risk_factors.find((f) => f.code === 'hidden-owner')!.evidence[0]!.kind).toBe(
      'simulation',
    );
  });

  it('counts an undecided access control at half weight, and each family once', () => {
    const { assessment } = expectExplained(
      input({
        static: staticOf({
          admin_functions: [fn('blacklist', 'a', 'unknown'), fn('blacklist', 'b', 'unknown')],
        }),
      }),
    );
    expect(assessment.score).toBe(Math.round(FAMILY_POINTS.blacklist * WEIGHTS.unknownAccessShare));
    expect(assessment.risk_factors.filter((f) => f.code === 'admin:blacklist')).toHaveLength(1);
  });

  it('does not score a trusted token (USDT-like) for capability, but reports it', () => {
    const usdtLike = staticOf({
      admin_functions: [
        fn('blacklist', 'addBlackList'),
        fn('pause', 'pause'),
        fn('mint', 'issue'),
        fn('fee', 'setParams'),
        fn('upgrade', 'deprecate'),
      ],
      template: 'reflection-token',
    });
    const trusted = expectExplained(
      input({ trusted: true, static: usdtLike, similarHoneypots: 1 }),
    );
    expect(trusted.assessment).toMatchObject({ score: 0, level: 'low', alerts: [] });
    expect(trusted.hints).toMatchObject({
      can_blacklist: true,
      can_pause: true,
      is_mintable: true,
      fee_modifiable: true,
    });
    const untrusted = assessRisk(input({ trusted: false, static: usdtLike }));
    expect(untrusted.score).toBeGreaterThan(60);
    // Behaviour still counts for a trusted token.
    expect(
      assessRisk(
        input({ trusted: true, simulation: sim({ is_honeypot: true, is_sellable: false }) }),
      ).level,
    ).toBe('honeypot');
  });

  it('grades taxes, blocked buys and transfers and max-tx limits from the simulation', () => {
    const taxed = expectExplained(
      input({ simulation: sim({ buy_tax_pct: 5, sell_tax_pct: 30, transfer_tax_pct: 1 }) }),
    );
    expect(taxed.assessment.score).toBe(3 + 25 + 3);
    const closed = expectExplained(
      input({
        simulation: sim({
          is_buyable: false,
          is_sellable: null,
          amounts: [
            {
              ...sim().amounts[0]!,
              buy_ok: false,
              sell_ok: false,
              error: 'buy reverted: Trading not enabled',
            },
          ],
        }),
      }),
    );
    expect(closed.assessment.score).toBe(WEIGHTS.notBuyable);
    expect(closed.hints.trading_restricted).toBe(true);
    const limited = expectExplained(input({ simulation: sim({ max_tx_amount: '5000' }) }));
    expect(limited.hints.has_max_tx_limit).toBe(true);
    const stuck = expectExplained(
      input({
        simulation: sim({
          amounts: [{ ...sim().amounts[0]!, transfer_ok: false, error: 'transfer reverted: no' }],
        }),
      }),
    );
    expect(stuck.assessment.risk_factors.map((f) => f.code)).toContain('transfer-blocked');
  });

  it('reports a missing simulation as a small, explained factor', () => {
    const { assessment } = expectExplained(
      input({
        simulation: sim({
          error: 'no liquidity',
          is_buyable: null,
          is_sellable: null,
          amounts: [],
        }),
      }),
    );
    expect(assessment.risk_factors).toEqual([
      expect.objectContaining({ code: 'simulation-unavailable', points: WEIGHTS.noSimulation }),
    ]);
  });

  it('weighs clones of earlier honeypots, liquidity, lock and the creator', () => {
    expect(assessRisk(input({ similarHoneypots: 1 })).score).toBe(WEIGHTS.honeypotClone);
    expect(assessRisk(input({ similarHoneypots: 3 })).score).toBe(WEIGHTS.honeypotCloneMany[1]);
    const risky = expectExplained(
      input({
        liquidity: { usd: 500, locked_pct: 0, burned_pct: 5, lockers: [] },
        creator: {
          address: OWNER,
          reputation_score: 10,
          total_tokens: 4,
          success_count: 0,
          scam_count: 3,
        },
      }),
    );
    expect(risky.assessment.score).toBe(
      WEIGHTS.liquidityUsdVeryLow[1] + WEIGHTS.liquidityUnlocked[1] + WEIGHTS.creatorBad[1],
    );
    expect(risky.hints.creator_reputation_score).toBe(10);
    expect(risky.hints.liquidity_lock).toEqual({ locked_pct: 0, burned_pct: 5, lockers: [] });
    const safe = assessRisk(
      input({
        static: staticOf({ admin_functions: [fn('mint', 'mint')] }),
        liquidity: { usd: 1e6, locked_pct: 90, burned_pct: 0, lockers: ['unicrypt'] },
        creator: {
          address: OWNER,
          reputation_score: 90,
          total_tokens: 5,
          success_count: 5,
          scam_count: 0,
        },
      }),
    );
    // A live mint keeps the token at least medium, however reassuring the rest: the floor factor
    // carries the difference.
    const sum = FAMILY_POINTS.mint + WEIGHTS.liquidityLocked[1] + WEIGHTS.creatorGood[1];
    expect(safe.score).toBe(LEVEL_FLOORS.onePower);
    expect(safe.risk_factors.find((f) => f.code === 'admin-powers')).toMatchObject({
      points: LEVEL_FLOORS.onePower - sum,
      severity: 'medium',
    });
  });

  it('orders factors by points and keeps the score within 0-100', () => {
    const { assessment } = expectExplained(
      input({
        static: staticOf({
          admin_functions: [fn('fee', 'f'), fn('mint', 'm')],
          ownership: ownership({ owner: ZERO, renounced: true }),
        }),
        liquidity: { usd: 1e7, locked_pct: 100, burned_pct: 0, lockers: [] },
      }),
    );
    expect(assessment.score).toBe(0);
    const points = assessment.risk_factors.map((f) => f.points);
    expect(points).toEqual([...points].sort((a, b) => b - a));
  });

  it('keeps a token with one live privileged power at least medium, two at least high', () => {
    const level = (fns: AdminFunction[], o: Partial<RiskInput> = {}) =>
      expectExplained(input({ static: staticOf({ admin_functions: fns }), ...o })).assessment;
    for (const [family, name] of [
      ['mint', 'mint'],
      ['blacklist', 'freeze'],
      ['balance-change', 'setBalance'],
      ['burn-from', 'destroy'],
      ['trading-switch', 'enable'],
      ['pause', 'pause'],
    ] as const) {
      const one = level([fn(family, name)]);
      expect([family, one.level]).toEqual([family, 'medium']);
      expect(one.score, family).toBeGreaterThanOrEqual(LEVEL_FLOORS.onePower);
    }
    // A role counts like the owner; two functions of one power are still one power.
    expect(level([fn('mint', 'mint', 'role'), fn('mint', 'issue')]).level).toBe('medium');
    const two = level([fn('mint', 'mint'), fn('blacklist', 'freeze')]);
    expect(two).toMatchObject({ score: LEVEL_FLOORS.twoPowers, level: 'high' });
    expect(two.risk_factors.find((f) => f.code === 'admin-powers')!.message).toMatch(
      /mint, blacklist/,
    );
    expect(level([fn('pause', 'pause'), fn('burn-from', 'destroy')]).level).toBe('high');
  });

  it('sets no floor for unproven access, for powers a real renounce killed, or for trusted tokens', () => {
    const floorOf = (i: RiskInput) =>
      assessRisk(i).risk_factors.find((f) => f.code === 'admin-powers');
    expect(
      floorOf(input({ static: staticOf({ admin_functions: [fn('mint', 'mint', 'unknown')] }) })),
    ).toBeUndefined();
    expect(
      floorOf(input({ static: staticOf({ admin_functions: [fn('mint', 'mint', 'none')] }) })),
    ).toBeUndefined();
    // Fee and max-tx powers are scored but set no floor.
    expect(
      assessRisk(
        input({
          static: staticOf({ admin_functions: [fn('fee', 'setFee'), fn('max-tx', 'setMax')] }),
        }),
      ).level,
    ).toBe('low');
    const renounced = assessRisk(
      input({
        static: staticOf({
          admin_functions: [fn('mint', 'mint'), fn('blacklist', 'freeze')],
          ownership: ownership({
            owner: '0x000000000000000000000000000000000000dead',
            renounced: true,
          }),
        }),
      }),
    );
    expect(renounced).toMatchObject({ level: 'low' });
    expect(renounced.risk_factors.map((f) => f.code)).toContain('ownership-renounced');
    // Undecided access dies with a real renounce too; a role survives it.
    const dead = ownership({ owner: ZERO, renounced: true });
    const undecided = expectExplained(
      input({
        static: staticOf({ admin_functions: [fn('mint', 'mint', 'unknown')], ownership: dead }),
      }),
    );
    expect(undecided.hints).toMatchObject({ is_mintable: false, ownership_renounced: true });
    const role = expectExplained(
      input({
        static: staticOf({ admin_functions: [fn('mint', 'mint', 'role')], ownership: dead }),
      }),
    );
    expect(role.hints).toMatchObject({ is_mintable: true, ownership_renounced: true });
    expect(role.assessment.level).toBe('medium');
    expect(
      assessRisk(
        input({
          trusted: true,
          static: staticOf({ admin_functions: [fn('mint', 'mint'), fn('blacklist', 'freeze')] }),
        }),
      ),
    ).toMatchObject({ score: 0, level: 'low' });
  });

  it('claims a hidden owner only on proof: a successful call of a power function from an address owner() does not name', () => {
    const mint = fn('mint', 'mint');
    const rescue = fn('withdraw', 'rescueETH');
    const renounced = {
      owner: '0x0000000000000000000000000000000000000000',
      renounced: true,
      fake_renounce: true,
      hidden_owner: OWNER,
    };
    // A stored address without a proven call is a guess.
    const guess = expectExplained(
      input({
        static: staticOf({
          admin_functions: [mint],
          ownership: ownership({ ...renounced, hidden_owner_selectors: [] }),
        }),
      }),
    );
    expect(guess.hints).toMatchObject({
      hidden_owner: false,
      ownership_renounced: true,
      is_mintable: false,
    });
    // A fee wallet that can only rescue ETH or swap fees (no power over holders) is no hidden owner.
    const feeWallet = expectExplained(
      input({
        static: staticOf({
          admin_functions: [mint, rescue],
          ownership: ownership({
            ...renounced,
            hidden_owner_selectors: [rescue.selector, 'feedf00d'],
          }),
        }),
      }),
    );
    expect(feeWallet.hints).toMatchObject({
      hidden_owner: false,
      ownership_renounced: true,
      is_mintable: false,
    });
    expect(feeWallet.assessment.level).toBe('low');
    // Proven on the mint: a fake renounce, the mint live again, the level at least medium.
    const proven = expectExplained(
      input({
        static: staticOf({
          admin_functions: [mint],
          ownership: ownership({ ...renounced, hidden_owner_selectors: [mint.selector] }),
        }),
      }),
    );
    expect(proven.hints).toMatchObject({
      hidden_owner: true,
      ownership_renounced: false,
      is_mintable: true,
      owner_address: OWNER,
    });
    expect(proven.assessment.risk_factors.find((f) => f.code === 'hidden-owner')!.message).toMatch(
      /Fake renounce/,
    );
    // Taking ownership back (SafeMoon unlock()) is proof too.
    const unlock = fn('ownership-transfer', 'unlock');
    const locked = expectExplained(
      input({
        static: staticOf({
          admin_functions: [mint, unlock],
          ownership: ownership({ ...renounced, hidden_owner_selectors: [unlock.selector] }),
        }),
      }),
    );
    expect(locked.hints).toMatchObject({ hidden_owner: true, is_mintable: true });
  });

  it('ignores behaviour findings without power, or by the address owner() names', () => {
    const finding = (f: Partial<BehaviourFinding>): BehaviourFinding => ({
      selector: 'deadbeef',
      arguments: '',
      family: 'mint',
      caller: OWNER,
      caller_role: 'creator',
      detail: 'supply +1',
      ...f,
    });
    const other = '0x2222222222222222222222222222222222222222';
    const noPower = expectExplained(
      input({
        static: staticOf({
          ownership: ownership({
            owner: '0x0000000000000000000000000000000000000000',
            renounced: true,
          }),
        }),
        behaviour: [finding({ family: 'withdraw', caller: other })],
      }),
    );
    expect(noPower.hints).toMatchObject({ hidden_owner: false, ownership_renounced: true });
    // The creator is the live owner: named by owner(), nothing hidden.
    const named = expectExplained(input({ behaviour: [finding({ caller: OWNER })] }));
    expect(named.hints).toMatchObject({
      hidden_owner: false,
      is_mintable: true,
      owner_address: OWNER,
    });
    const hidden = expectExplained(input({ behaviour: [finding({ caller: other })] }));
    expect(hidden.hints).toMatchObject({ hidden_owner: true, owner_address: OWNER });
  });

  it("does not read ERC20Burnable's allowance-spending burnFrom as power over holders", () => {
    const burnFrom = (access: AccessControl): AdminFunction => ({
      ...fn('burn-from', 'burnFrom', access),
      signature: 'burnFrom(address,uint256)',
      selector: id('burnFrom(address,uint256)').slice(2, 10),
    });
    const standard = expectExplained(
      input({ static: staticOf({ admin_functions: [burnFrom('role')] }) }),
    );
    expect(standard.hints.owner_can_change_balance).toBe(false);
    expect(standard.assessment).toMatchObject({ score: 0, level: 'low' });
    expect(standard.assessment.risk_factors.find((f) => f.code === 'allowance-burn')).toMatchObject(
      { points: 0 },
    );
    expect(
      expectExplained(input({ static: staticOf({ admin_functions: [burnFrom('none')] }) })).hints
        .owner_can_change_balance,
    ).toBe(false);
    // Reserved to one stored address, it is a backdoor.
    const reserved = expectExplained(
      input({ static: staticOf({ admin_functions: [burnFrom('owner-only')] }) }),
    );
    expect(reserved.hints.owner_can_change_balance).toBe(true);
    expect(reserved.assessment.level).toBe('medium');
  });

  it('reports the proven admin of a contract without any owner getter as its owner, not as hidden', () => {
    const controller = '0x3333333333333333333333333333333333333333';
    const mint = fn('mint', 'generateTokens');
    const noGetter = ownership({
      owner: null,
      owner_source: null,
      hidden_owner: controller,
      hidden_owner_selectors: [mint.selector],
    });
    const stored = expectExplained(
      input({ static: staticOf({ admin_functions: [mint], ownership: noGetter }) }),
    );
    expect(stored.hints).toMatchObject({
      hidden_owner: false,
      is_mintable: true,
      owner_address: controller,
    });
    expect(stored.assessment.level).toBe('medium');
    const finding: BehaviourFinding = {
      selector: 'deadbeef',
      arguments: 'address,uint256',
      family: 'mint',
      caller: controller,
      caller_role: 'creator',
      detail: 'supply +1',
    };
    const probed = expectExplained(
      input({
        static: staticOf({ ownership: ownership({ owner: null, owner_source: null }) }),
        behaviour: [finding],
      }),
    );
    expect(probed.hints).toMatchObject({
      hidden_owner: false,
      is_mintable: true,
      owner_address: controller,
    });
  });

  it('proves a hidden owner on exactly the families scored at 5 points or more, and ownership transfer', () => {
    const scored = (Object.keys(FAMILY_POINTS) as AdminFamily[]).filter(
      (f) => FAMILY_POINTS[f] >= 5,
    );
    expect([...PROOF_FAMILIES].sort()).toEqual([...scored, 'ownership-transfer'].sort());
  });
});
