import {
  AbiCoder,
  getCreate2Address,
  Interface,
  id,
  keccak256,
  ParamType,
  type Result,
} from 'ethers';
import { loadArtifact } from '../../../contracts/artifacts.ts';
import type { RpcClient } from '../../evm/rpc.ts';
import type { ExtractedFunction } from '../types.ts';
import {
  type BehaviourFinding,
  classifyEffect,
  type PrivilegedCaller,
  type ProbeOutcome,
  sellTax,
  splitFlat,
} from './behaviour-effects.ts';
import {
  capSearchRequest,
  decodeCapSearch,
  FEE_LADDER,
  numberOffsets,
  WHOLE_SALE_PCT,
} from './cap-search.ts';
import { decodeRawResult, freshAddress, type Pool, TRANSFER_BPS } from './simulation.ts';

/**
 * Behaviour probes: what a function *does*, whatever it is called. Admin functions with innocent
 * names ("syncEmission", "updateHolderTier") escape every signature catalog; their effects do not.
 *
 * For each candidate (a state-changing function that is neither standard ERC-20 nor in the
 * catalog), the AdminProbe contract is placed by state override at a privileged address (the
 * owner, a hidden admin, the creator), so its calls carry that msg.sender. It creates a fresh
 * trader that buys, makes the candidate call with arguments aimed at the trader, and then lets the
 * trader buy, transfer and sell. Compared with a control run (same caller, no candidate call),
 * the differences are the function's effects: the trader's balance and the supply changed (mint,
 * balance rewrite, burn from others), trades that worked now revert (blacklist when the function
 * names an address, pause when it does not), a blocked buy now works (trading switch), or the
 * taxes moved (fee setter). A finding also needs the same call from a stranger to revert: a
 * function anyone can call is no one's privilege.
 */

/** Candidates probed per token; a token with more unknown functions has its first ones probed. */
export const MAX_PROBED_FUNCTIONS = 24;
/** Argument values: first 99 (a small fee in percent or basis points, a visible mint), then 7. */
export const PROBE_VALUES = [99n, 7n] as const;
const PROBE_GAS = 20_000_000;
/** Argument types the probe can fill meaningfully. */
const SIMPLE_TYPE = /^(address|bool|u?int\d{0,3}|bytes32)(\[\])?$/;

/** ERC-20, EIP-2612 and Ownable functions every token has: never admin powers in themselves. */
const STANDARD_SIGNATURES = [
  'transfer(address,uint256)',
  'transferFrom(address,address,uint256)',
  'approve(address,uint256)',
  'increaseAllowance(address,uint256)',
  'decreaseAllowance(address,uint256)',
  'permit(address,address,uint256,uint256,uint8,bytes32,bytes32)',
  'burn(uint256)',
  'renounceOwnership()',
  'transferOwnership(address)',
  'acceptOwnership()',
  'deposit()',
  'withdraw(uint256)',
  'multicall(bytes[])',
];
export const STANDARD_SELECTORS: ReadonlySet<string> = new Set(
  STANDARD_SIGNATURES.map((s) => id(s).slice(2, 10)),
);

const coder = AbiCoder.defaultAbiCoder();
const probeArtifact = loadArtifact('AdminProbe');
const probeInterface = new Interface(probeArtifact.abi);
const TRADER_SALT = id('token-monitor.admin-probe.trader');
const TRADER_INIT_CODE_HASH = keccak256(loadArtifact('TradeSimulator').bytecode);

export {
  type BehaviourFinding,
  type CallerRole,
  classifyEffect,
  findingToAdminFunction,
  type PrivilegedCaller,
  TAX_EFFECT_PP,
} from './behaviour-effects.ts';

export interface BehaviourReport {
  /** Selectors probed. */
  probed: string[];
  /** Candidates left out (over the cap, or arguments the probe cannot fill). */
  skipped: string[];
  findings: BehaviourFinding[];
}

/** The trader AdminProbe creates when placed at `caller` (CREATE2: known before the call). */
export function traderAddress(caller: string): string {
  return getCreate2Address(caller, TRADER_SALT, TRADER_INIT_CODE_HASH).toLowerCase();
}

/** Functions worth probing: state-changing, not standard, not already catalogued. */
export function probeCandidates(
  functions: readonly ExtractedFunction[],
  catalogued: ReadonlySet<string>,
): { candidates: ExtractedFunction[]; skipped: string[] } {
  const candidates: ExtractedFunction[] = [];
  const skipped: string[] = [];
  for (const f of functions) {
    if (
      f.state_mutability === 'view' ||
      f.state_mutability === 'pure' ||
      f.state_mutability === 'payable'
    )
      continue;
    if (STANDARD_SELECTORS.has(f.selector) || catalogued.has(f.selector)) continue;
    const types = splitFlat(f.arguments);
    if (
      types === null ||
      !types.every((t) => SIMPLE_TYPE.test(t)) ||
      candidates.length >= MAX_PROBED_FUNCTIONS
    )
      skipped.push(f.selector);
    else candidates.push(f);
  }
  return { candidates, skipped };
}

function argumentValue(type: string, trader: string, value: bigint): unknown {
  const base = type.endsWith('[]') ? type.slice(0, -2) : type;
  const single =
    base === 'address'
      ? trader
      : base === 'bool'
        ? true
        : base === 'bytes32'
          ? `0x${value.toString(16).padStart(64, '0')}`
          : value;
  return type.endsWith('[]') ? [single] : single;
}

/** Call data aiming the function at the trader: address arguments name it, numbers are `value`, booleans true. */
export function candidateCalldata(f: ExtractedFunction, trader: string, value: bigint): string {
  const types = splitFlat(f.arguments) ?? [];
  const encoded = coder.encode(
    types.map((t) => ParamType.from(t)),
    types.map((t) => argumentValue(t, trader, value)),
  );
  return `0x${f.selector}${encoded.slice(2)}`;
}

const describeArgs = (f: ExtractedFunction, value: bigint) =>
  (splitFlat(f.arguments) ?? [])
    .map((t) =>
      t.startsWith('address') ? 'the trader' : t.startsWith('bool') ? 'true' : String(value),
    )
    .join(', ');

function probeRequest(
  pool: Pool,
  token: string,
  caller: string,
  amountIn: bigint,
  adminCall: string,
) {
  const data = probeInterface.encodeFunctionData('probe', [
    pool.router,
    token,
    pool.pair,
    pool.weth,
    amountIn,
    TRANSFER_BPS,
    adminCall,
  ]);
  const balance = `0x${(amountIn * 4n + 10n ** 18n).toString(16)}`;
  return {
    method: 'eth_call',
    params: [
      { from: freshAddress(), to: caller, data, gas: `0x${PROBE_GAS.toString(16)}` },
      'latest',
      { [caller]: { code: probeArtifact.deployedBytecode, balance } },
    ],
  };
}

function decodeOutcome(data: string): ProbeOutcome {
  const o = probeInterface.decodeFunctionResult('probe', data)[0] as Result;
  return {
    trader: String(o[0]).toLowerCase(),
    before: decodeRawResult(o[1] as Result),
    adminOk: Boolean(o[2]),
    adminError: String(o[3]),
    balanceBefore: BigInt(o[4]),
    balanceAfter: BigInt(o[5]),
    supplyBefore: BigInt(o[6]),
    supplyAfter: BigInt(o[7]),
    after: decodeRawResult(o[8] as Result),
  };
}

export interface BehaviourInput {
  token: string;
  pool: Pool;
  functions: readonly ExtractedFunction[];
  /** Selectors the catalog already classified. */
  catalogued: ReadonlySet<string>;
  callers: readonly PrivilegedCaller[];
  amountIn: bigint;
  /**
   * Selectors the static analysis found gated on the caller. When given, a token none of whose
   * candidates is among them is not probed: a finding needs a stranger's call refused, and its
   * probes would be calls spent to learn nothing.
   */
  gated?: ReadonlySet<string>;
}

async function runProbes(
  rpc: RpcClient,
  requests: ReturnType<typeof probeRequest>[],
): Promise<(ProbeOutcome | null)[]> {
  if (requests.length === 0) return [];
  const outcomes = await rpc.batch<string>(requests);
  return outcomes.map((o) => {
    if (o.ok) return decodeOutcome(o.result);
    if (o.error.kind === 'revert') return null;
    throw o.error;
  });
}

/** Probes every candidate from every privileged caller; I/O is eth_call only (no transaction). */
export async function probeAdminBehaviour(
  rpc: RpcClient,
  input: BehaviourInput,
): Promise<BehaviourReport> {
  const { candidates, skipped } = probeCandidates(input.functions, input.catalogued);
  const callers = dedupeCallers(input.callers);
  const gated = input.gated;
  if (gated && !candidates.some((f) => gated.has(f.selector)))
    return {
      probed: [],
      skipped: [...candidates.map((f) => f.selector), ...skipped],
      findings: [],
    };
  const report: BehaviourReport = {
    probed: candidates.map((f) => f.selector),
    skipped,
    findings: [],
  };
  if (candidates.length === 0 || callers.length === 0) return report;
  const probe = (caller: string, adminCall: string) =>
    probeRequest(input.pool, input.token, caller, input.amountIn, adminCall);
  // The control runs (no candidate call) travel with the first round's probes.
  let controls: (ProbeOutcome | null)[] | undefined;
  let pending = candidates;
  for (const value of PROBE_VALUES) {
    if (pending.length === 0) break;
    const jobs = pending.flatMap((f) => callers.map((c, ci) => ({ f, c, ci })));
    const requests = jobs.map(({ f, c }) =>
      probe(c.address, candidateCalldata(f, traderAddress(c.address), value)),
    );
    const first = controls ? [] : callers.map((c) => probe(c.address, '0x'));
    const answers = await runProbes(rpc, [...first, ...requests]);
    controls ??= answers.splice(0, first.length);
    const { found, accepted } = readRound(jobs, answers, controls, value);
    // A privilege only if a stranger making the same call is refused.
    const suspects = [...found.values()];
    const stranger = freshAddress();
    const strangerOutcomes = await runProbes(
      rpc,
      suspects.map((s) =>
        probe(
          stranger,
          candidateCalldata(
            candidates.find((f) => f.selector === s.selector)!,
            traderAddress(stranger),
            value,
          ),
        ),
      ),
    );
    suspects.forEach((s, i) => {
      if (strangerOutcomes[i]?.adminOk === false) report.findings.push(s);
    });
    // The second value only for functions no caller could call with the first.
    pending = pending.filter((f) => !accepted.has(f.selector));
  }
  for (const finding of report.findings.filter((f) => f.family === 'fee').slice(0, MAX_CAPPED)) {
    const fn = candidates.find((f) => f.selector === finding.selector)!;
    const control = controls?.[callers.findIndex((c) => c.address === finding.caller)] ?? null;
    const limit = await feeCap(rpc, input.token, finding, fn, control, probe);
    if (limit) report.findings.push(limit);
  }
  return report;
}

/** Fee setters whose cap is searched per token (each costs a few batched probes). */
const MAX_CAPPED = 2;
const NUMBER = /^u?int\d{0,3}$/;

/**
 * The fee's cap (docs/risk-model.md, "Fee setters"): the highest value the setter accepts from
 * its caller, searched in one eth_call by the PowerProver placed at the caller (a ladder, then a
 * binary search between the highest accepted and the lowest refused value), then the sell tax at
 * that value from one more AdminProbe run. Recorded in the fee finding's detail and numbers; a
 * fee that can take the whole sale (the sell fails, or its tax reaches WHOLE_SALE_PCT) is also a
 * limit, returned as a trading-switch finding.
 */
async function feeCap(
  rpc: RpcClient,
  token: string,
  finding: BehaviourFinding,
  fn: ExtractedFunction,
  control: ProbeOutcome | null,
  probe: (caller: string, adminCall: string) => ReturnType<typeof probeRequest>,
): Promise<BehaviourFinding | null> {
  const types = splitFlat(fn.arguments) ?? [];
  // Only static number arguments take the searched value (an array's words move).
  if (types.some((t) => t.endsWith('[]')) || !types.some((t) => NUMBER.test(t))) return null;
  const trader = traderAddress(finding.caller);
  const template = candidateCalldata(fn, trader, 0n);
  const [answer] = await rpc
    .batch<string>([
      capSearchRequest(finding.caller, token, template, numberOffsets(types), 'latest'),
    ])
    .catch(() => [null]);
  if (!answer?.ok) return null;
  const value = decodeCapSearch(answer.result);
  if (value === null) return null;
  const [outcome] = await runProbes(rpc, [
    probe(finding.caller, candidateCalldata(fn, trader, value)),
  ]).catch(() => [null]);
  const found = outcome?.adminOk ? { value, outcome } : null;
  if (!found) return null;
  const uncapped = found.value === FEE_LADDER[FEE_LADDER.length - 1];
  const sell = found.outcome.after.sell;
  const taxAtCap = sellTax(found.outcome.after);
  const taxBefore = control ? sellTax(control.after) : null;
  const capText = uncapped ? 'any value (no cap)' : String(found.value);
  const atCap = taxAtCap === null ? 'a sale fails' : `the sell tax is ${taxAtCap}%`;
  finding.detail = `${finding.detail}; the setter accepts at most ${capText} (searched), at which ${atCap}`;
  finding.before = { sell_tax_pct: taxBefore === null ? 'none' : String(taxBefore) };
  finding.after = {
    sell_tax_pct: taxAtCap === null ? 'sale fails' : String(taxAtCap),
    fee_cap: uncapped ? 'none' : String(found.value),
  };
  if (sell.ok && taxAtCap !== null && taxAtCap < WHOLE_SALE_PCT) return null;
  return {
    ...finding,
    family: 'trading-switch',
    detail: `with the fee set to ${capText}, ${atCap}: the fee can take the whole sale, a limit`,
  };
}

/** One round's effects: the first finding per function, and the functions some caller could call. */
function readRound(
  jobs: { f: ExtractedFunction; c: PrivilegedCaller; ci: number }[],
  outcomes: (ProbeOutcome | null)[],
  controls: (ProbeOutcome | null)[],
  value: bigint,
): { found: Map<string, BehaviourFinding>; accepted: Set<string> } {
  const found = new Map<string, BehaviourFinding>();
  const accepted = new Set<string>();
  jobs.forEach(({ f, c, ci }, i) => {
    const outcome = outcomes[i];
    const control = controls[ci];
    if (!outcome || !control) return;
    if (outcome.adminOk) accepted.add(f.selector);
    if (found.has(f.selector)) return;
    const effect = classifyEffect(control, outcome, f, value);
    if (effect)
      found.set(f.selector, {
        selector: f.selector,
        arguments: f.arguments,
        family: effect.family,
        caller: c.address,
        caller_role: c.role,
        detail: `with (${describeArgs(f, value)}) ${effect.detail}`,
      });
  });
  return { found, accepted };
}

function dedupeCallers(callers: readonly PrivilegedCaller[]): PrivilegedCaller[] {
  const seen = new Set<string>();
  const out: PrivilegedCaller[] = [];
  for (const c of callers) {
    const a = c.address.toLowerCase();
    if (/^0x0{40}$/.test(a) || /^0x0{36}dead$/.test(a) || seen.has(a)) continue;
    seen.add(a);
    out.push({ address: a, role: c.role });
  }
  return out;
}
