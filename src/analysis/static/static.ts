import { hasOpcode } from '../../evm/bytecode.ts';
import { type ChainReader, createChainReader } from '../../evm/chain-reader.ts';
import { coalescingOf, withCode } from '../../evm/coalesce/index.ts';
import { prefetch } from '../../evm/prefetch.ts';
import type { RpcClient } from '../../evm/rpc.ts';
import {
  type BytecodeVerdict,
  bytecodeVerdict,
  type CodeModel,
  candidateSlotRequests,
  functionLabel,
  ownerRequests,
  ownershipInfo,
  prepareCode,
  proxyFromCode,
  proxySlotRequests,
  readOwner,
  readRoles,
  resolveProxy,
  STRANGER,
  withRoles,
} from '../access/index.ts';
import {
  type DispatchedFunction,
  extractFunctions,
  identifyTemplate,
  normalizeCode,
  skeletonHash,
  toExtracted,
} from '../bytecode/index.ts';
import type { CapabilityReport } from '../capabilities/index.ts';
import {
  analyzeCapabilities,
  applyCapabilities,
  applyLowersOnly,
  type Judged,
} from '../capabilities/index.ts';
import { catalogEntry, selectorOf } from '../catalog/index.ts';
import type {
  AdminFunction,
  ExtractedFunction,
  PrivilegedFunction,
  ProxyInfo,
  StaticAnalysis,
} from '../types.ts';
import { type FeeCap, feeCaps } from './fee-caps.ts';
import {
  adminFunction,
  closeByStorage,
  closingSlotRequests,
  finalFunctions,
  findHiddenOwner,
  privilegedFunction,
  privilegedSlotsOf,
  probeJudged,
} from './probes.ts';
import { provePowers } from './proofs.ts';

/**
 * Static analysis of one contract: functions, admin functions and who can call them, proxy,
 * ownership, skeleton hash and template. `analyzeBytecode` is the part that needs no chain;
 * `analyzeStatic` adds what only the chain can tell (proxy slots, owner, eth_call probes) and,
 * behind a proxy, analyses the implementation too.
 */

/**
 * Steps of symbolic walking allowed per contract (over all its functions). Most contracts need a
 * few thousand; this caps the worst case at well under a second. Functions past the budget get
 * access control 'unknown' from the bytecode.
 */
export const WALK_BUDGET_PER_CONTRACT = 150_000;
/** Steps allowed per function. */
export const WALK_BUDGET_PER_FUNCTION = 10_000;

/** Standard ERC-20 / EIP-2612 functions: gated by balances and allowances, never admin functions. */
const STANDARD_SELECTORS: ReadonlySet<string> = new Set(
  [
    'transfer(address,uint256)',
    'transferFrom(address,address,uint256)',
    'approve(address,uint256)',
    'increaseAllowance(address,uint256)',
    'decreaseAllowance(address,uint256)',
    'burn(uint256)',
    'permit(address,address,uint256,uint256,uint8,bytes32,bytes32)',
  ].map(selectorOf),
);

const isStateChanging = (f: ExtractedFunction) =>
  f.state_mutability !== 'view' && f.state_mutability !== 'pure';

/** What analyzeBytecode returns: everything but ownership, which needs the chain. */
export type BytecodeAnalysis = Omit<StaticAnalysis, 'ownership' | 'privileged_functions'> & {
  privileged_functions: PrivilegedFunction[];
  /** Why no function could be extracted, or null. */
  error: string | null;
};

interface CodeAnalysis {
  public: BytecodeAnalysis;
  functions: DispatchedFunction[];
  /** Catalog matches and uncatalogued caller-gated functions, with their bytecode verdicts. */
  judged: Judged[];
  /** What the code does (capabilities.ts), or null when it never reads the caller. */
  capabilities: CapabilityReport | null;
}

const NO_CALLER_VERDICT = (fn: ExtractedFunction, label: string): BytecodeVerdict => ({
  access: 'none',
  evidence: [
    {
      kind: 'bytecode',
      selector: fn.selector,
      detail: `${label}: the code never reads CALLER or ORIGIN, so no function can check who calls it`,
    },
  ],
  checks: [],
  walk: {
    checks: [],
    callerDependent: false,
    unguardedStateChange: true,
    externalCalls: false,
    complete: true,
    cutOutsideLoops: false,
    steps: 0,
    paths: 0,
    traces: [],
  },
});

function judgeFunctions(
  model: CodeModel | null,
  functions: readonly DispatchedFunction[],
): Judged[] {
  let budget = WALK_BUDGET_PER_CONTRACT;
  const judged: Judged[] = [];
  // Catalog matches first: they must get a verdict even when a huge contract exhausts the budget.
  const ordered = [...functions]
    .filter(isStateChanging)
    .sort((a, b) => Number(!catalogEntry(a.selector)) - Number(!catalogEntry(b.selector)));
  for (const fn of ordered) {
    const entry = catalogEntry(fn.selector) ?? null;
    if (!entry && STANDARD_SELECTORS.has(fn.selector)) continue;
    const label = functionLabel(fn.selector, entry?.signature);
    let verdict: BytecodeVerdict;
    if (!model)
      verdict = {
        ...NO_CALLER_VERDICT(fn, label),
        access: 'unknown',
        evidence: [
          { kind: 'bytecode', selector: fn.selector, detail: `${label}: code not analysable` },
        ],
      };
    else if (!model.readsCaller) verdict = NO_CALLER_VERDICT(fn, label);
    else {
      verdict = bytecodeVerdict(
        model,
        fn,
        label,
        Math.max(1, Math.min(WALK_BUDGET_PER_FUNCTION, budget)),
      );
      budget -= verdict.walk.steps;
    }
    // Uncatalogued functions are kept only when the code shows a gate on the caller.
    if (entry || verdict.checks.some((c) => c.kind !== 'caller-mapping'))
      judged.push({ fn, entry, verdict });
  }
  return judged;
}

function analyzeCode(code: string): CodeAnalysis {
  const extraction = extractFunctions(code);
  const hex = normalizeCode(code);
  const model = hex && extraction.error === null ? prepareCode(hex) : null;
  const labelOf = (f: ExtractedFunction) =>
    functionLabel(f.selector, catalogEntry(f.selector)?.signature);
  // What the code does decides the families: named or not, proven or demoted.
  const capabilities = model?.readsCaller
    ? analyzeCapabilities(model, extraction.functions, labelOf)
    : null;
  const judged = applyLowersOnly(
    model,
    applyCapabilities(
      judgeFunctions(model, extraction.functions),
      capabilities,
      extraction.functions,
      (fn) => bytecodeVerdict(model!, fn, labelOf(fn), WALK_BUDGET_PER_FUNCTION),
    ),
    extraction.functions,
    labelOf,
  );
  const template = identifyTemplate(
    code,
    extraction.functions.map((f) => f.selector),
  );
  const analysis: BytecodeAnalysis = {
    functions: extraction.functions.map(toExtracted),
    admin_functions: judged
      .filter((j) => j.entry)
      .map((j) => adminFunction(j.entry!, j.verdict.access, j.verdict.evidence)),
    privileged_functions: judged
      .filter((j) => !j.entry)
      .map((j) => privilegedFunction(j.fn, j.verdict.access, j.verdict.evidence)),
    proxy: proxyFromCode(code),
    skeleton_hash: skeletonHash(code),
    template: template?.template ?? null,
    error: extraction.error,
  };
  return { public: analysis, functions: extraction.functions, judged, capabilities };
}

/**
 * Everything the code alone tells: functions, catalog matches with bytecode-only access control,
 * uncatalogued caller-gated functions, EIP-1167 detection, skeleton hash, template. Pure and
 * synchronous; never throws on malformed code.
 */
export function analyzeBytecode(code: string): BytecodeAnalysis {
  return analyzeCode(code).public;
}

export interface StaticDeps {
  rpc: RpcClient;
  reader: ChainReader;
  /**
   * The same node through a client that may fold the calls of several senders into one eth_call
   * (src/evm/coalesce/coalesce.ts `acrossSenders`), where tx.origin is not the sender: used only for a
   * contract whose code never reads ORIGIN and never runs other code as its own.
   */
  acrossSenders?: RpcClient;
}

/**
 * The selectors stage's analysis over one node's client: its reads folded into few eth_calls
 * (src/evm/coalesce/), as the stage, its analysis threads and the benchmarks all run it.
 */
export function analyzeOver(rpc: RpcClient, input: StaticInput): Promise<StaticAnalysis> {
  return analyzeStatic(
    {
      rpc: coalescingOf(rpc),
      acrossSenders: coalescingOf(rpc, { acrossSenders: true }),
      reader: createChainReader(rpc),
    },
    input,
  );
}

/** ORIGIN, CALLCODE, DELEGATECALL: code that reads tx.origin, or may run code that does. */
const ORIGIN_SENSITIVE = [0x32, 0xf2, 0xf4];

export interface StaticInput {
  chainId: number;
  address: string;
  code: string;
  blockTag?: string;
}

/**
 * The selectors stage's analysis of a deployed contract. RPC failures other than reverts
 * propagate (the stage retries); reverts are answers.
 */
export async function analyzeStatic(deps: StaticDeps, input: StaticInput): Promise<StaticAnalysis> {
  const address = input.address.toLowerCase();
  const blockTag = input.blockTag ?? 'latest';
  const own = analyzeCode(input.code);
  // The reads that depend only on the address and its own code, asked together: behind a
  // coalescing client (src/evm/coalesce/coalesce.ts) its storage reads are one eth_call and the owner
  // getters another, instead of one batch per step. Behind a proxy, the implementation's code
  // may ask for more, which the later steps ask then.
  const sendersApart = ORIGIN_SENSITIVE.some((op) => hasOpcode(input.code, op));
  // Knowing the code, a coalescing client reads its slots in the same eth_call as its getters.
  const base = withCode(deps.acrossSenders && !sendersApart ? deps.acrossSenders : deps.rpc, {
    [address]: input.code,
  });
  const rpc = await prefetch(base, [
    ...proxySlotRequests(address, blockTag, input.code),
    ...closingSlotRequests({ address, blockTag, report: own.capabilities }),
    ...ownerRequests(address, blockTag),
    ...candidateSlotRequests(address, blockTag, privilegedSlotsOf(own.judged)),
  ]);
  const resolution = await resolveProxy(rpc, { address, code: input.code, blockTag });
  const implementation = resolution.implementationCode
    ? analyzeCode(resolution.implementationCode)
    : null;

  // Behind a proxy, the implementation's functions answer at the proxy's address; the proxy's own
  // dispatcher (transparent proxies, UUPS hooks) comes first.
  const functions = mergeBySelector(own.functions, implementation?.functions ?? []);
  const logic = implementation ?? own;
  // Capabilities the chain's state closed for good are judged on the logic's code and the
  // address's storage (a proxy's storage is its implementation's state).
  const judged = await closeByStorage(
    rpc,
    { address, blockTag, report: logic.capabilities },
    mergeJudged(own.judged, implementation?.judged ?? []),
  );

  const roles = await readRoles(rpc, { address, blockTag, functions });
  const reading = withRoles(await readOwner(rpc, { address, blockTag }), roles);
  const ownerAddress = reading.owner !== null && reading.owner !== STRANGER ? reading.owner : null;
  // The stranger's and owner's probes and the proofs of the proposed powers, asked together.
  const [probes, proofs, fees] = await Promise.all([
    probeJudged(rpc, { address, blockTag, ownerAddress, judged }),
    provePowers(rpc, {
      address,
      blockTag,
      owner: ownerAddress,
      judged,
      report: logic.capabilities,
      admin: judged.filter((j) => j.entry).map((j) => adminFunction(j.entry!, 'unknown', [])),
    }),
    feeCaps(rpc, {
      address,
      blockTag,
      owner: ownerAddress,
      judged,
      report: logic.capabilities,
    }),
  ]);
  // Not hidden: the owner, the proxy's own admin (reported in proxy.admin), the contracts involved.
  const excluded = new Set([
    address,
    STRANGER,
    reading.owner ?? '',
    resolution.info.implementation ?? '',
    ...resolution.hops.flatMap((h) => [h.implementation, h.admin ?? '']),
  ]);
  const hidden = await findHiddenOwner(rpc, { address, blockTag, reading, excluded, probes });
  const final = finalFunctions(probes, hidden);
  const capOf = new Map(fees.map((f) => [f.selector, f.proof]));
  const admin_functions = [
    ...final.admin_functions.map((f) => {
      const proof =
        proofs.get(f.selector) ?? (f.family === 'fee' ? capOf.get(f.selector) : undefined);
      return proof ? { ...f, proof } : f;
    }),
    ...feeCapFunctions(fees, final),
  ];
  const { privileged_functions } = final;

  const proxy: ProxyInfo = resolution.info.is_proxy ? resolution.info : own.public.proxy;
  return {
    functions: functions.map(toExtracted),
    admin_functions,
    privileged_functions,
    proxy,
    ownership: ownershipInfo(reading, hidden, roles),
    // The logic decides behaviour: behind a proxy, the implementation's skeleton and template.
    skeleton_hash: logic.public.skeleton_hash,
    template: logic.public.template ?? own.public.template,
    ...externalCallOf(logic.capabilities),
  };
}

/**
 * What the fee cap searches add: an uncatalogued setter (found by its effect, whatever its name)
 * becomes a `fee` entry, proven by its cap, so that `fee_modifiable` holds; a setter whose cap
 * lets the fee take the whole amount is also the limit it is, a `trading-switch` entry beside its
 * own (a catalogued `fee` entry keeps its family), and, when the fee goes to a wallet a privileged
 * function sets, a `fee-siphon`. All carry the setter's access control.
 */
function feeCapFunctions(
  fees: readonly FeeCap[],
  final: Pick<StaticAnalysis, 'admin_functions' | 'privileged_functions'>,
): AdminFunction[] {
  const out: AdminFunction[] = [];
  for (const fee of fees) {
    const catalogued = final.admin_functions.find((f) => f.selector === fee.selector);
    const privileged = final.privileged_functions?.find((f) => f.selector === fee.selector);
    const access_control = catalogued?.access_control ?? privileged?.access_control;
    if (access_control === undefined) continue;
    const signature = catalogued?.signature ?? `0x${fee.selector}(${privileged?.arguments ?? ''})`;
    const entry = (
      family: 'fee' | 'trading-switch' | 'fee-siphon',
      description: string,
      proof = fee.proof,
    ): AdminFunction => ({
      name: catalogued?.name ?? `0x${fee.selector}`,
      signature,
      selector: fee.selector,
      family,
      risk_level: family === 'fee-siphon' ? 'critical' : 'high',
      description,
      access_control,
      evidence: [{ kind: 'simulation', selector: fee.selector, detail: proof.detail }],
      proof,
    });
    if (!catalogued)
      out.push(entry('fee', 'Sets the fee transfers take, found by its effect on transfer().'));
    if (fee.whole)
      out.push(
        entry(
          'trading-switch',
          'Sets a fee that can take the whole amount of a transfer: a limit.',
        ),
      );
    if (fee.siphon)
      out.push(
        entry(
          'fee-siphon',
          'Sets an uncapped fee credited to a wallet the owner sets: every transfer can be taken.',
          fee.siphon,
        ),
      );
  }
  return out;
}

/** The first external gate a privileged function can swap, as the code fact `external_call`. */
function externalCallOf(report: CapabilityReport | null): Pick<StaticAnalysis, 'external_call'> {
  const gate = report?.findings.find((f) => f.externalCall);
  const detail = gate?.evidence[0]?.detail;
  return detail ? { external_call: { detail } } : {};
}

function mergeBySelector<T extends { selector: string }>(
  first: readonly T[],
  second: readonly T[],
): T[] {
  const seen = new Set(first.map((f) => f.selector));
  return [...first, ...second.filter((f) => !seen.has(f.selector))];
}

function mergeJudged(first: readonly Judged[], second: readonly Judged[]): Judged[] {
  const seen = new Set(first.map((j) => j.fn.selector));
  return [...first, ...second.filter((j) => !seen.has(j.fn.selector))];
}
