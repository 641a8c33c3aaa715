import { ContractFactory, type InterfaceAbi } from 'ethers';
import { createRpcClient } from '../../infra/rpc/index.ts';
import { addressFromLabel } from '../../src/analysis/bytecode/index.ts';
import { CLAIMS } from '../../src/analysis/capabilities/index.ts';
import { matchCatalog } from '../../src/analysis/catalog/index.ts';
import { assessRisk, deriveHints } from '../../src/analysis/risk/index.ts';
import { analyzeStatic } from '../../src/analysis/static/index.ts';
import type { RiskFactor, SecurityHints } from '../../src/analysis/types.ts';
import { type ChainReader, createChainReader } from '../../src/evm/chain-reader.ts';
import type { RpcClient } from '../../src/evm/rpc.ts';
import {
  type BackdoorEntry,
  CAPABILITIES,
  type CapabilityLabel,
  hasCapability,
  hasLabel,
  type Score,
  STUDY_LABELS,
  type StudyLabel,
  score,
} from './backdoors.ts';
import type { TestChain } from './chain.ts';
import { parseLaunchSetup, replayLaunchSetup, type StepOutcome } from './launch-setup.ts';

/**
 * Runs the analyser over the labelled development set on Anvil, two ways:
 * - `launched`: the creation code deployed with its constructor arguments from the deployer, then
 *   the launch setup each entry's notes record replayed from the deployer (roles, funding, the
 *   transfers to two holders, the release of transfers: launch-setup.ts), i.e. the state in which
 *   the study's labels were confirmed on chain; a step that reverts is recorded, not fatal;
 * - `set-code`: the runtime code placed with anvil_setCode and only the owner slot written (empty
 *   storage: zero supply, zero balances), which is how held-out tokens are submitted.
 * The analysis is the selectors stage's (analyzeStatic) followed by the risk score and hints.
 * The baseline of the same run is name matching: a capability whenever the dispatcher routes a
 * catalogued function of its family (mint, burnFrom, freezeAccount, pause…), whatever the code does.
 */

export type PlaceMode = 'launched' | 'set-code';

export interface EntryResult {
  id: string;
  name: string;
  mode: PlaceMode;
  /** Why the entry could not be placed, or null. */
  error: string | null;
  /** `launched`: each replayed step of the recorded launch setup and whether it went through. */
  setup: StepOutcome[];
  hints: SecurityHints | null;
  observed: Record<CapabilityLabel, boolean>;
  observedLabels: Record<StudyLabel, boolean>;
  /** The name-matching baseline: the dispatcher routes a catalogued function of the capability's family. */
  named: Record<CapabilityLabel, boolean>;
  /** The risk factors behind the flags (code and evidence), for explaining each miss. */
  factors: RiskFactor[];
  /** The static analysis reported an external gate the owner can swap (`external_call`). */
  externalCall: boolean;
  ms: number;
}

const RECEIPT_POLL_MS = 20;
const RECEIPT_TIMEOUT_MS = 30_000;
/** Owner slots are among the first declared variables. */
const OWNER_SLOT_SCAN = 32;
const ADDRESS_MASK = (1n << 160n) - 1n;
const OWNER_SELECTOR = '0x8da5cb5b';

async function receipt(
  chain: TestChain,
  hash: string,
): Promise<{ status: string; contractAddress: string | null }> {
  const deadline = Date.now() + RECEIPT_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const r = (await chain.provider.send('eth_getTransactionReceipt', [hash])) as {
      status: string;
      contractAddress: string | null;
    } | null;
    if (r) return r;
    await new Promise((resolve) => setTimeout(resolve, RECEIPT_POLL_MS));
  }
  throw new Error(`transaction ${hash} not mined`);
}

async function deployWithConstructor(chain: TestChain, e: BackdoorEntry): Promise<string> {
  const factory = new ContractFactory(e.abi as InterfaceAbi, e.creation_bytecode, chain.signer);
  const tx = await factory.getDeployTransaction(...e.constructor_args);
  const sent = await chain.signer.sendTransaction({ ...tx, gasLimit: 25_000_000 });
  const r = await receipt(chain, sent.hash);
  if (r.status !== '0x1' || !r.contractAddress) throw new Error('constructor reverted');
  return r.contractAddress.toLowerCase();
}

/** What owner() of a deployed instance answers (a hard-coded owner), else the deployer. */
async function ownerOf(chain: TestChain, address: string): Promise<bigint> {
  try {
    const word = BigInt(await chain.provider.call({ to: address, data: OWNER_SELECTOR }));
    if (word !== 0n && word <= ADDRESS_MASK) return word;
  } catch {
    // no owner() getter: the deployer
  }
  return BigInt(chain.account);
}

/**
 * The slots (and bit offsets) of a deployed instance that hold its owner, and that owner. Every
 * match is kept: a token may keep its owner twice (a creator and an Ownable owner).
 */
async function ownerSlots(
  chain: TestChain,
  address: string,
): Promise<{ slot: number; shift: bigint; owner: bigint }[]> {
  const owner = await ownerOf(chain, address);
  const found: { slot: number; shift: bigint; owner: bigint }[] = [];
  for (let slot = 0; slot < OWNER_SLOT_SCAN; slot++) {
    const word = BigInt(await chain.provider.getStorage(address, slot));
    for (let shift = 0n; shift <= 96n; shift += 8n) {
      if (((word >> shift) & ADDRESS_MASK) === owner) {
        found.push({ slot, shift, owner });
        break;
      }
    }
  }
  return found;
}

/**
 * Places one entry; for set-code, `template` is a constructor-deployed instance (no setup) to find
 * the owner slot in. `launched` also replays the recorded launch setup; its outcome is returned.
 */
export async function placeEntry(
  chain: TestChain,
  e: BackdoorEntry,
  mode: PlaceMode,
  template?: string,
): Promise<{ address: string; setup: StepOutcome[] }> {
  if (mode === 'launched') {
    const address = await deployWithConstructor(chain, e);
    const { steps } = parseLaunchSetup(e.notes, chain.account);
    return { address, setup: await replayLaunchSetup(chain, address, steps) };
  }
  const address = addressFromLabel(`token-monitor.backdoor-set.${e.id}`);
  await chain.provider.send('anvil_setCode', [address, e.runtime_bytecode]);
  for (const slot of template ? await ownerSlots(chain, template) : []) {
    const word = `0x${(slot.owner << slot.shift).toString(16).padStart(64, '0')}`;
    await chain.provider.send('anvil_setStorageAt', [address, `0x${slot.slot.toString(16)}`, word]);
  }
  return { address, setup: [] };
}

/** Name matching: which capabilities the catalogued names among the routed selectors claim. */
export function namedCapabilities(
  functions: readonly { selector: string }[],
): Record<CapabilityLabel, boolean> {
  const claimed = new Set(matchCatalog(functions).map((e) => CLAIMS[e.family]));
  return { mint: claimed.has('mint'), leak: claimed.has('leak'), limit: claimed.has('limit') };
}

export function capabilitiesOf(h: SecurityHints): Record<CapabilityLabel, boolean> {
  return {
    mint: h.is_mintable,
    leak: h.owner_can_change_balance,
    limit: h.can_blacklist || h.can_pause || h.trading_restricted,
  };
}

export function labelsOf(h: SecurityHints): Record<StudyLabel, boolean> {
  return {
    mint: h.is_mintable,
    freeze: h.can_blacklist,
    disable_transfer: h.can_pause || h.trading_restricted,
    burn_from: h.owner_can_change_balance,
    arbitrary_transfer: h.owner_can_change_balance,
  };
}

const NONE = Object.fromEntries(CAPABILITIES.map((c) => [c, false])) as Record<
  CapabilityLabel,
  boolean
>;
const NO_LABELS = Object.fromEntries(STUDY_LABELS.map((l) => [l, false])) as Record<
  StudyLabel,
  boolean
>;

/**
 * The analysis every accuracy run measures: the selectors stage's (analyzeStatic) followed by the
 * risk score and hints, with no trade simulation or behaviour probes; the time is the analysis's.
 */
export async function analyseToken(
  deps: { rpc: RpcClient; reader: ChainReader },
  chainId: number,
  address: string,
): Promise<Omit<EntryResult, 'id' | 'name' | 'mode' | 'setup'>> {
  const started = performance.now();
  const code = await deps.reader.code(address, 'latest');
  const analysis = await analyzeStatic(deps, { chainId, address, code });
  const assessment = assessRisk({
    trusted: false,
    static: analysis,
    behaviour: [],
    simulation: null,
    similarHoneypots: 0,
  });
  const hints = deriveHints({ assessment, static: analysis });
  return {
    error: null,
    hints,
    observed: capabilitiesOf(hints),
    observedLabels: labelsOf(hints),
    named: namedCapabilities(analysis.functions),
    factors: assessment.risk_factors,
    externalCall: analysis.external_call != null,
    ms: performance.now() - started,
  };
}

/** Places and analyses every entry in one mode. */
export async function runDevelopmentSet(
  chain: TestChain,
  entries: readonly BackdoorEntry[],
  mode: PlaceMode,
  onProgress?: (n: number) => void,
): Promise<EntryResult[]> {
  const rpc = createRpcClient({ urls: [chain.anvil.rpcUrl] });
  const reader = createChainReader(rpc);
  const out: EntryResult[] = [];
  for (const e of entries) {
    const base = { id: e.id, name: e.contract_name, mode };
    let placed: { address: string; setup: StepOutcome[] };
    try {
      const template =
        mode === 'set-code'
          ? await deployWithConstructor(chain, e).catch(() => undefined)
          : undefined;
      placed = await placeEntry(chain, e, mode, template);
    } catch (error) {
      out.push({
        ...base,
        error: (error as Error).message,
        setup: [],
        hints: null,
        observed: NONE,
        observedLabels: NO_LABELS,
        named: NONE,
        factors: [],
        externalCall: false,
        ms: 0,
      });
      continue;
    }
    const analysed = await analyseToken({ rpc, reader }, chain.anvil.chainId, placed.address);
    out.push({ ...base, ...analysed, setup: placed.setup });
    onProgress?.(out.length);
  }
  return out;
}

export interface DevelopmentScores {
  capabilities: Score[];
  /** The same capabilities by name matching alone (the baseline). */
  named: Score[];
  labels: Score[];
  misses: { id: string; name: string; label: string; kind: 'missed' | 'false alarm' }[];
  placed: number;
}

export function scoreDevelopmentSet(
  entries: readonly BackdoorEntry[],
  results: readonly EntryResult[],
): DevelopmentScores {
  const byId = new Map(entries.map((e) => [e.id, e]));
  const placed = results.filter((r) => r.error === null);
  const misses: DevelopmentScores['misses'] = [];
  const capabilities = CAPABILITIES.map((c) =>
    score(
      c,
      placed.map((r) => {
        const truth = hasCapability(byId.get(r.id)!, c);
        if (truth !== r.observed[c])
          misses.push({ id: r.id, name: r.name, label: c, kind: truth ? 'missed' : 'false alarm' });
        return { truth, observed: r.observed[c] };
      }),
    ),
  );
  const named = CAPABILITIES.map((c) =>
    score(
      c,
      placed.map((r) => ({ truth: hasCapability(byId.get(r.id)!, c), observed: r.named[c] })),
    ),
  );
  const labels = STUDY_LABELS.map((l) =>
    score(
      l,
      placed.map((r) => ({ truth: hasLabel(byId.get(r.id)!, l), observed: r.observedLabels[l] })),
    ),
  );
  return { capabilities, named, labels, misses, placed: placed.length };
}
