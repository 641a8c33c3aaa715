import { ContractFactory, type InterfaceAbi, id, parseEther } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRpcClient } from '../../infra/rpc/index.ts';
import { probeCreatorAccess } from '../../src/analysis/access/index.ts';
import {
  assessRisk,
  deriveHints,
  evidenceFor,
  type HintFlag,
} from '../../src/analysis/risk/index.ts';
import {
  amountsFor,
  probeAdminBehaviour,
  simulateTrading,
} from '../../src/analysis/simulation/index.ts';
import { analyzeStatic } from '../../src/analysis/static/index.ts';
import type { RiskAssessment, SecurityHints, StaticAnalysis } from '../../src/analysis/types.ts';
import { createChainReader } from '../../src/evm/chain-reader.ts';
import { createCoalescingRpc } from '../../src/evm/coalesce/index.ts';
import type { RpcClient } from '../../src/evm/rpc.ts';
import { privilegedCallers } from '../../workers/simulate.ts';
import { addLiquidity, startTestChain, type TestChain, waitMined } from '../support/chain.ts';
import { type Compiled, compileSolidity } from '../support/solc.ts';
import { solidityFixture } from '../support/solidity.ts';

const OWNERSHIP_SOURCE = solidityFixture('ownership-modern');

/**
 * Ownership shapes of 2021-2023 tokens (solc 0.8, OpenZeppelin-style code), deployed on Anvil with
 * a Uniswap V2 pool, their ownership changed for real (renounceOwnership, lock, a pending
 * transfer, renounceRole), and analysed the way the pipeline does: the selectors stage's static
 * analysis, the simulate stage's trade simulation and behaviour probes (with the creator as a
 * privileged caller), then the risk stage's score and hints. Each assertion is the rule of
 * docs/risk-model.md ("Risk levels", "Ownership and renounce") it checks.
 */

const SUPPLY_TO_POOL = parseEther('100000000');

let chain: TestChain;
let rpc: RpcClient;
let contracts: Record<string, Compiled>;

interface Analysed {
  analysis: StaticAnalysis;
  assessment: RiskAssessment;
  hints: SecurityHints;
}

async function deploy(name: string): Promise<string> {
  const c = contracts[name]!;
  const factory = new ContractFactory(c.abi as InterfaceAbi, c.bytecode, chain.signer);
  const tx = await factory.getDeployTransaction();
  const receipt = await waitMined(chain.provider, chain.signer.sendTransaction(tx));
  return receipt.contractAddress!.toLowerCase();
}

async function send(name: string, address: string, fn: string, args: unknown[] = []) {
  const c = contracts[name]!;
  const { Contract } = await import('ethers');
  const contract = new Contract(address, c.abi as InterfaceAbi, chain.signer);
  await waitMined(chain.provider, contract.getFunction(fn)(...args));
}

/**
 * selectors → simulate → risk, in process, as workers/selectors, simulate and risk run them (the
 * simulate stage's behaviour probes and creator access probe, with the deployer as the creator).
 */
async function analyse(address: string): Promise<Analysed> {
  const reader = createChainReader(rpc);
  const code = await reader.code(address, 'latest');
  const analysis = await analyzeStatic(
    { rpc, reader },
    { chainId: chain.anvil.chainId, address, code },
  );
  const config = chain.chainConfig();
  const { report, pool } = await simulateTrading(rpc, { chain: config, token: address });
  const behaviour = pool
    ? await probeAdminBehaviour(rpc, {
        token: address,
        pool,
        functions: analysis.functions,
        catalogued: new Set(analysis.admin_functions.map((f) => f.selector)),
        callers: privilegedCallers(analysis, { creator: chain.account } as never),
        amountIn: amountsFor(pool.nativeReserve)[0]!,
        gated: new Set((analysis.privileged_functions ?? []).map((f) => f.selector)),
      })
    : null;
  const callers = privilegedCallers(analysis, { creator: chain.account } as never);
  // Folded into one eth_call per sender, as the simulate stage asks them.
  const creator = await probeCreatorAccess(createCoalescingRpc(rpc), {
    token: address,
    analysis,
    callers,
  });
  const findings = [...(behaviour?.findings ?? []), ...creator];
  const assessment = assessRisk({
    trusted: false,
    static: analysis,
    behaviour: findings,
    simulation: report,
    similarHoneypots: 0,
  });
  const hints = deriveHints({ assessment, static: analysis, behaviour: findings });
  return { analysis, assessment, hints };
}

/** Deploys, pools a tenth of the supply against 1 ETH, runs `prepare`, analyses. */
async function scenario(
  name: string,
  prepare: (address: string) => Promise<void> = async () => {},
  pooled = SUPPLY_TO_POOL,
): Promise<Analysed & { address: string }> {
  const address = await deploy(name);
  await addLiquidity(chain, address, pooled);
  await prepare(address);
  const result = await analyse(address);
  return { address, ...result };
}

/** Every true flag is explained by a factor whose evidence names the function or observation. */
function expectExplained(a: Analysed, flag: HintFlag, mention: RegExp) {
  expect(a.hints[flag], flag).toBe(true);
  const evidence = evidenceFor(a.assessment, flag);
  expect(evidence.length, `${flag} has evidence`).toBeGreaterThan(0);
  expect(evidence.map((e) => e.detail).join(' | ')).toMatch(mention);
}

const summary = (a: Analysed) =>
  `${a.assessment.level} ${a.assessment.score} ${a.assessment.risk_factors.map((f) => `${f.code}:${f.points}`).join(',')} ${JSON.stringify(
    Object.fromEntries(Object.entries(a.hints).filter(([, v]) => v === true)),
  )}`;

beforeAll(async () => {
  contracts = compileSolidity(OWNERSHIP_SOURCE);
  chain = await startTestChain();
  rpc = createRpcClient({ urls: [chain.anvil.rpcUrl] });
});
afterAll(async () => chain?.stop());

/** Anvil's second account: a pending owner that can really send. */
const OTHER = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
/** Where DevBehindPending keeps its dev (Anvil's fifth account). */
const DEV = '0x15d34aaf54267db7d7c367839aaf71a00a2c6a65';
const DAY = 86_400;
const ADMIN_ROLE = `0x${'0'.repeat(64)}`;
const MINTER_ROLE = id('MINTER_ROLE');
const LEVELS = ['low', 'medium', 'high', 'honeypot'] as const;
const atLeast = (a: Analysed, level: (typeof LEVELS)[number]) =>
  expect(LEVELS.indexOf(a.assessment.level), summary(a)).toBeGreaterThanOrEqual(
    LEVELS.indexOf(level),
  );
const codes = (a: Analysed) => a.assessment.risk_factors.map((f) => f.code);

describe('honest ownership: renounced or powerless owners', () => {
  it('OpenZeppelin Ownable: the owner-only mint is medium while live, dead after renounceOwnership()', async () => {
    const live = await scenario('RenouncedLaunch');
    atLeast(live, 'medium');
    expectExplained(live, 'is_mintable', /mint\(address,uint256\)/);
    const renounced = await scenario('RenouncedLaunch', (a) =>
      send('RenouncedLaunch', a, 'renounceOwnership'),
    );
    expect(renounced.assessment.level, summary(renounced)).toBe('low');
    expect(renounced.hints).toMatchObject({
      is_mintable: false,
      hidden_owner: false,
      ownership_renounced: true,
      owner_address: null,
    });
    // The marketing wallet in storage is a candidate, never proof: it can call nothing gated.
    expect(renounced.analysis.ownership.hidden_owner).toBeNull();
    const factor = renounced.assessment.risk_factors.find((f) => f.code === 'ownership-renounced')!;
    expect(factor.message).toMatch(/mint\(address,uint256\)/);
    expect(factor.evidence.map((e) => e.detail).join(' ')).toMatch(/owner\(\) returns 0x0{40}/);
    expect(codes(renounced)).not.toContain('admin-powers');
  });

  it('bounded fees and a fee wallet setter: low, no hidden owner, live or renounced', async () => {
    const live = await scenario('BoundedFees');
    expect(live.assessment.level, summary(live)).toBe('low');
    expect(live.hints).toMatchObject({ hidden_owner: false, is_mintable: false });
    expect(codes(live)).not.toContain('admin-powers');
    const renounced = await scenario('BoundedFees', (a) =>
      send('BoundedFees', a, 'renounceOwnership'),
    );
    expect(renounced.assessment.level).toBe('low');
    expect(renounced.hints).toMatchObject({ hidden_owner: false, ownership_renounced: true });
  });

  it('Ownable2Step: a pending owner is no hidden owner; renounce clears it', async () => {
    const pending = await scenario('TwoStepMint', (a) =>
      send('TwoStepMint', a, 'transferOwnership', [OTHER]),
    );
    expect(pending.hints.hidden_owner, summary(pending)).toBe(false);
    expect(pending.hints.owner_address).toBe(chain.account);
    atLeast(pending, 'medium');
    expectExplained(pending, 'is_mintable', /mint\(address,uint256\)/);
    const renounced = await scenario('TwoStepMint', async (a) => {
      await send('TwoStepMint', a, 'transferOwnership', [OTHER]);
      await send('TwoStepMint', a, 'renounceOwnership');
    });
    expect(renounced.assessment.level, summary(renounced)).toBe('low');
    expect(renounced.hints).toMatchObject({ hidden_owner: false, ownership_renounced: true });
  });
});

describe('live powers set the level floor', () => {
  it('owner mint, bot list or pause: at least medium; mint and blacklist: at least high', async () => {
    const mint = await scenario('OwnerMint');
    atLeast(mint, 'medium');
    expectExplained(mint, 'is_mintable', /mint\(address,uint256\)/);
    const bots = await scenario('OwnerBots');
    atLeast(bots, 'medium');
    expectExplained(bots, 'can_blacklist', /addBots\(address\[\]\)/);
    const pause = await scenario('OwnerPause');
    atLeast(pause, 'medium');
    expectExplained(pause, 'can_pause', /pause\(\)/);
    const both = await scenario('MintBlacklist');
    atLeast(both, 'high');
    expectExplained(both, 'is_mintable', /mint\(address,uint256\)/);
    expectExplained(both, 'can_blacklist', /blacklist\(address,bool\)/);
    expect(codes(both)).toContain('admin-powers');
    for (const a of [mint, bots, pause, both]) expect(a.hints.hidden_owner).toBe(false);
    const renounced = await scenario('MintBlacklist', (a) =>
      send('MintBlacklist', a, 'renounceOwnership'),
    );
    expect(renounced.assessment.level).toBe('low');
    expect(renounced.hints).toMatchObject({ is_mintable: false, can_blacklist: false });
  });

  it('AccessControl: MINTER_ROLE mints whoever holds the admin role; renouncing roles is not seen', async () => {
    const live = await scenario('RoleMint');
    atLeast(live, 'medium');
    expectExplained(live, 'is_mintable', /mint\(address,uint256\)/);
    expect(live.hints.hidden_owner).toBe(false);
    const adminGone = await scenario('RoleMint', (a) =>
      send('RoleMint', a, 'renounceRole', [ADMIN_ROLE, chain.account]),
    );
    // The deployer still holds MINTER_ROLE: the mint is live.
    atLeast(adminGone, 'medium');
    expect(adminGone.hints.is_mintable).toBe(true);
    // No owner getter: the creator, proven to mint, is the owner address, not a hidden owner.
    expect(adminGone.hints).toMatchObject({ owner_address: chain.account, hidden_owner: false });
    // Known limit (docs/risk-model.md): with every role renounced nobody can mint, but role
    // holders cannot be listed from the code, so a role-gated power is never declared dead.
    const allGone = await scenario('RoleMint', async (a) => {
      await send('RoleMint', a, 'renounceRole', [MINTER_ROLE, chain.account]);
      await send('RoleMint', a, 'renounceRole', [ADMIN_ROLE, chain.account]);
    });
    expect(allGone.hints.is_mintable).toBe(true);
    expect(allGone.hints.owner_address).toBeNull();
  });
});

describe('hidden owners need proof', () => {
  it('renounced Ownable with a dev address that mints and freezes: fake renounce, high', async () => {
    const a = await scenario('DevBackdoor', (t) => send('DevBackdoor', t, 'renounceOwnership'));
    atLeast(a, 'high');
    expect(a.hints).toMatchObject({
      hidden_owner: true,
      ownership_renounced: false,
      owner_address: chain.account,
    });
    expectExplained(a, 'hidden_owner', new RegExp(`${chain.account}.*can call`));
    expectExplained(a, 'is_mintable', /0x[0-9a-f]{8}\(address,uint256\)/);
    expectExplained(a, 'can_blacklist', /setBot\(address,bool\)/);
    expect(a.assessment.risk_factors.find((f) => f.code === 'hidden-owner')!.message).toMatch(
      /Fake renounce/,
    );
  });

  it('a live owner with a pending transfer does not hide a dev address that mints', async () => {
    const a = await scenario('DevBehindPending', (t) =>
      send('DevBehindPending', t, 'transferOwnership', [OTHER]),
    );
    expect(a.analysis.ownership.hidden_owner).toBe(DEV);
    expectExplained(
      a,
      'hidden_owner',
      new RegExp(`${DEV}.*(mint|0x[0-9a-f]{8}\\(address,uint256\\))`),
    );
    expectExplained(a, 'is_mintable', /0x[0-9a-f]{8}\(address,uint256\)/);
    atLeast(a, 'medium');
  });

  it('a hand-rolled two-step whose renounce leaves the pending owner: fake renounce', async () => {
    const a = await scenario('TwoStepLeaky', async (t) => {
      await send('TwoStepLeaky', t, 'transferOwnership', [OTHER]);
      await send('TwoStepLeaky', t, 'renounceOwnership');
    });
    expect(a.hints).toMatchObject({ hidden_owner: true, ownership_renounced: false });
    expectExplained(a, 'hidden_owner', new RegExp(`${OTHER}.*acceptOwnership\\(\\)`));
    expectExplained(a, 'can_blacklist', /0x[0-9a-f]{8}\(address,bool\)/);
    atLeast(a, 'medium');
  });

  it('SafeMoon lock(time): the unlock path proves the previous owner within the look-ahead', async () => {
    const week = await scenario('SafeMoonLock', (t) => send('SafeMoonLock', t, 'lock', [7 * DAY]));
    expect(week.hints).toMatchObject({
      hidden_owner: true,
      ownership_renounced: false,
      owner_address: chain.account,
    });
    expectExplained(week, 'hidden_owner', /unlock\(\).*days ahead/);
    expectExplained(week, 'can_blacklist', /blacklistAddress\(address,bool\)/);
    atLeast(week, 'medium');
    // Locked for ten years: no call succeeds within the look-ahead, so nothing is proven and the
    // lock reads as a renounce (docs/risk-model.md, "Ownership and renounce").
    const decade = await scenario('SafeMoonLock', (t) =>
      send('SafeMoonLock', t, 'lock', [3650 * DAY]),
    );
    expect(decade.hints).toMatchObject({ hidden_owner: false, ownership_renounced: true });
    expect(decade.assessment.level).toBe('low');
  });

  it('the stealth-launch tax wallet that can only lower the tax is no hidden owner', async () => {
    const a = await scenario('StealthLaunch', async (t) => {
      await send('StealthLaunch', t, 'openTrading');
      await send('StealthLaunch', t, 'removeLimits');
      await send('StealthLaunch', t, 'renounceOwnership');
    });
    expect(a.hints, summary(a)).toMatchObject({
      hidden_owner: false,
      fee_modifiable: false,
      ownership_renounced: true,
    });
    expect(a.assessment.level).toBe('low');
    const reduce = a.analysis.admin_functions.find((f) => f.signature === 'reduceFee(uint256)')!;
    expect(reduce.family).toBe('other');
    expect(reduce.evidence.map((e) => e.detail).join(' ')).toMatch(
      /One-way: can only lower the fee/,
    );
    // OpenZeppelin's hook style moves the tax with super._transfer: the same, live or renounced.
    for (const renounce of [false, true]) {
      const hook = await scenario('HookTaxLaunch', async (t) => {
        if (renounce) await send('HookTaxLaunch', t, 'renounceOwnership');
      });
      expect(hook.hints, summary(hook)).toMatchObject({
        hidden_owner: false,
        fee_modifiable: false,
        has_max_tx_limit: false,
        ownership_renounced: renounce,
      });
      expect(hook.assessment.level).toBe('low');
    }
  });
});

describe('reflection accounting', () => {
  it("SafeMoon's excludeFromReward/includeInReward are no balance rewrite; renounced it is low", async () => {
    // Nine decimals and a billion tokens: a tenth of the supply in the pool.
    const pooled = 10n ** 17n;
    const live = await scenario('Reflection', async () => {}, pooled);
    expect(live.hints.owner_can_change_balance, summary(live)).toBe(false);
    expect(live.hints.hidden_owner).toBe(false);
    expectExplained(live, 'fee_modifiable', /setTaxFeePercent\(uint256\)/);
    const renounced = await scenario(
      'Reflection',
      (t) => send('Reflection', t, 'renounceOwnership'),
      pooled,
    );
    expect(renounced.assessment.level, summary(renounced)).toBe('low');
    expect(renounced.hints).toMatchObject({
      owner_can_change_balance: false,
      hidden_owner: false,
      ownership_renounced: true,
      fee_modifiable: false,
      can_blacklist: false,
    });
  });
});

describe('role tables survive a renounce', () => {
  it('Auth: owner handed to 0x…dEaD, the old owner still authorized: fake renounce, blacklist live', async () => {
    const a = await scenario('AuthToken', (t) =>
      send('AuthToken', t, 'transferOwnership', ['0x000000000000000000000000000000000000dEaD']),
    );
    // A role (a lookup of the caller in a mapping) is not revoked by renouncing owner(): the
    // floor holds.
    atLeast(a, 'medium');
    expectExplained(a, 'can_blacklist', /blacklist\(address,bool\).*(role table|mapping)/);
    // The creator, held only in the mapping, is proven by the simulate stage's eth_call of the
    // gated blacklist from it: a fake renounce.
    expect(a.hints).toMatchObject({
      ownership_renounced: false,
      hidden_owner: true,
      owner_address: chain.account,
    });
    expectExplained(a, 'hidden_owner', new RegExp(`${chain.account} \\(creator\\)`));
  });
});
