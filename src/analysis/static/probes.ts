import { toBeHex } from 'ethers';
import type { RpcClient, RpcRequest } from '../../evm/rpc.ts';
import {
  type CallOutcome,
  combineVerdicts,
  functionLabel,
  type GatedFunction,
  type HiddenOwnerResult,
  isDeadAddress,
  MAX_HIDDEN_CANDIDATES,
  type PrivilegedSlot,
  probeCalls,
  probeRequests,
  proveHiddenOwner,
  provesPrivilege,
  type readOwner,
  type SimulationVerdict,
  STRANGER,
  type StorageCandidate,
  simulationVerdict,
  storageCandidates,
} from '../access/index.ts';
import { toExtracted } from '../bytecode/index.ts';
import type { CapabilityReport, Judged } from '../capabilities/index.ts';
import { closedRequirement } from '../capabilities/index.ts';
import type {
  AccessControl,
  AdminFunction,
  CatalogEntry,
  Evidence,
  ExtractedFunction,
  PrivilegedFunction,
} from '../types.ts';

/**
 * What the chain adds to the bytecode's judgement of each function (static.ts): eth_call probes
 * from a stranger and from the owner, the hidden-owner search over the addresses the code and
 * storage name, and the functions' final access control.
 */

export const adminFunction = (
  entry: CatalogEntry,
  access: AccessControl,
  evidence: Evidence[],
): AdminFunction => ({ ...entry, access_control: access, evidence });
export const privilegedFunction = (
  fn: ExtractedFunction,
  access: AccessControl,
  evidence: Evidence[],
): PrivilegedFunction => ({ ...toExtracted(fn), access_control: access, evidence });

/** Each judged function probed with eth_call, with what the probes decide about its access. */
export interface Probed {
  judged: readonly Judged[];
  simulations: SimulationVerdict[];
  /** The stranger's outcomes per judged function (one per argument variant). */
  stranger: CallOutcome[][];
}

/** Probes: each judged function from a stranger and from the owner, two argument variants each. */
export async function probeJudged(
  rpc: RpcClient,
  input: { address: string; blockTag: string; ownerAddress: string | null; judged: Judged[] },
): Promise<Probed> {
  const { address, ownerAddress, judged } = input;
  const requests = judged.flatMap((j) => [
    ...probeRequests(address, STRANGER, j.fn),
    ...(ownerAddress ? probeRequests(address, ownerAddress, j.fn) : []),
  ]);
  const outcomes = await probeCalls(rpc, requests, input.blockTag);
  const perFunction = ownerAddress ? 4 : 2;
  const stranger = judged.map((_, i) => outcomes.slice(i * perFunction, i * perFunction + 2));
  const simulations: SimulationVerdict[] = judged.map((j, i) => {
    const o = outcomes.slice(i * perFunction, (i + 1) * perFunction);
    return simulationVerdict(j.fn, functionLabel(j.fn.selector, j.entry?.signature), {
      stranger: o.slice(0, 2),
      owner: ownerAddress ? o.slice(2, 4) : null,
      ownerAddress,
      ownerRenounced: ownerAddress !== null && isDeadAddress(ownerAddress),
    });
  });
  return { judged, simulations, stranger };
}

/**
 * Hidden owner: addresses in storage (above all in slots the code compares with the caller),
 * addresses hard-coded in caller checks, and owner getters that disagree with owner(), each
 * tried on the functions a stranger cannot call and whose code checks the caller (a stranger's
 * revert alone could be a balance or allowance check that a holder passes).
 */
export async function findHiddenOwner(
  rpc: RpcClient,
  input: {
    address: string;
    blockTag: string;
    reading: Awaited<ReturnType<typeof readOwner>>;
    excluded: ReadonlySet<string>;
    probes: Probed;
  },
): Promise<HiddenOwnerResult> {
  const { address, blockTag, reading, excluded, probes } = input;
  const checks = probes.judged.flatMap((j) => j.verdict.checks);
  const privilegedSlots = privilegedSlotsOf(probes.judged);
  const hardcoded = checks
    .filter((c) => c.kind === 'hardcoded-address' && c.address)
    .map((c) => ({ address: c.address!, source: 'the code (compared with the caller)' }));
  const stored = await storageCandidates(rpc, { address, blockTag, privilegedSlots });
  const disagreeing = reading.others.map((o) => ({
    address: o.address,
    source: `${o.source} (which disagrees with ${reading.source})`,
  }));
  const candidates = uniqueCandidates([
    ...disagreeing,
    ...stored.filter((s) => s.source.includes('compares')),
    ...hardcoded,
    ...stored,
  ])
    .filter((c) => !excluded.has(c.address) && !isDeadAddress(c.address))
    .slice(0, MAX_HIDDEN_CANDIDATES);
  const gated: GatedFunction[] = [];
  probes.judged.forEach((j, i) => {
    const privileged = j.verdict.access === 'owner-only' || j.verdict.access === 'role';
    if (probes.simulations[i]!.strangerBlocked && privileged) {
      // Uncatalogued gated functions are of unknown effect: no preference (docs/risk-model.md).
      const carriesPower =
        j.entry !== null &&
        j.entry.family !== 'ownership-transfer' &&
        provesPrivilege(j.entry.family, false);
      gated.push({
        fn: j.fn,
        signature: j.entry?.signature,
        stranger: probes.stranger[i]!,
        carriesPower,
      });
    }
  });
  return proveHiddenOwner(rpc, { address, blockTag, candidates, gated });
}

/** The judged functions with access decided by the bytecode, the probes and the hidden owner. */
export function finalFunctions(
  probes: Probed,
  hidden: HiddenOwnerResult,
): { admin_functions: AdminFunction[]; privileged_functions: PrivilegedFunction[] } {
  const admin_functions: AdminFunction[] = [];
  const privileged_functions: PrivilegedFunction[] = [];
  probes.judged.forEach((j, i) => {
    let { access, evidence } = combineVerdicts(j.verdict, probes.simulations[i]!);
    if (hidden.hidden_owner && hidden.selectors.includes(j.fn.selector)) {
      evidence = [
        ...evidence,
        {
          kind: 'simulation',
          selector: j.fn.selector,
          detail: `also callable by ${hidden.hidden_owner}, a second privileged address held in storage`,
        },
      ];
      if (access === 'unknown' || access === 'none') access = 'owner-only';
    }
    if (j.entry) admin_functions.push(adminFunction(j.entry, access, evidence));
    // An uncatalogued function is privileged when both judgements agree it is gated on the caller.
    else if (access === 'owner-only' || access === 'role')
      privileged_functions.push(privilegedFunction(j.fn, access, evidence));
  });
  return { admin_functions, privileged_functions };
}

/** The storage slots the judged functions' code compares with the caller, once each. */
export function privilegedSlotsOf(judged: readonly Judged[]): PrivilegedSlot[] {
  const checks = judged.flatMap((j) => j.verdict.checks);
  const out = new Map<string, PrivilegedSlot>();
  for (const c of checks) {
    if (c.kind !== 'stored-address' || !c.slot) continue;
    out.set(`${c.slot}|${c.shift ?? 0}`, { slot: c.slot, shift: c.shift ?? 0 });
  }
  return [...out.values()];
}

function uniqueCandidates(candidates: readonly StorageCandidate[]): StorageCandidate[] {
  const out = new Map<string, StorageCandidate>();
  for (const c of candidates) if (!out.has(c.address)) out.set(c.address, c);
  return [...out.values()];
}

/** The findings a flag could close: those that need some stored value. */
const closable = (report: CapabilityReport) =>
  report.findings.filter((f) => (f.requires?.length ?? 0) > 0);

function closingSlots(report: CapabilityReport | null): bigint[] {
  if (!report?.walkedAll) return [];
  const needs = closable(report);
  return [...new Set(needs.flatMap((f) => f.requires!.map((r) => r.slot)))];
}

/** What closeByStorage asks: the slots whose flags the report's capabilities need. */
export function closingSlotRequests(input: {
  address: string;
  blockTag: string;
  report: CapabilityReport | null;
}): RpcRequest[] {
  return closingSlots(input.report).map((slot) => ({
    method: 'eth_getStorageAt',
    params: [input.address, toBeHex(slot, 32), input.blockTag],
  }));
}

/**
 * Judged functions whose capability needs a flag that storage holds the other way for good
 * (capabilities/state.ts): demoted to 'other', with the slot, the branch and the stored word as
 * evidence. Only on a report that walked every function: a write it did not see could reopen.
 */
export async function closeByStorage(
  rpc: RpcClient,
  input: { address: string; blockTag: string; report: CapabilityReport | null },
  judged: Judged[],
): Promise<Judged[]> {
  const { report } = input;
  if (!report?.walkedAll) return judged;
  const needs = closable(report);
  const slots = closingSlots(report);
  if (slots.length === 0) return judged;
  const outcomes = await rpc.batch<string>(closingSlotRequests(input));
  const storage = new Map<bigint, bigint>();
  slots.forEach((slot, i) => {
    const o = outcomes[i]!;
    if (!o.ok) throw o.error;
    storage.set(slot, BigInt(o.result));
  });
  return judged.map((j) => {
    const found = needs.find((f) => f.selector === j.fn.selector && f.family === j.entry?.family);
    const closed = found ? closedRequirement(found.requires!, storage, report.slotWrites) : null;
    if (!found || !closed || !j.entry) return j;
    const word = storage.get(closed.slot)!;
    const detail =
      `${j.entry.signature}: its ${found.capability} path needs bit ${closed.shift} of slot ` +
      `0x${closed.slot.toString(16)} to be ${closed.bit} (branch at pc ${closed.pc}); storage holds ` +
      `${toBeHex(word, 32)} and no function can store that value again: closed for good`;
    return {
      ...j,
      entry: { ...j.entry, family: 'other', risk_level: 'low' },
      verdict: {
        ...j.verdict,
        evidence: [{ kind: 'storage', selector: j.fn.selector, detail }, ...j.verdict.evidence],
      },
    };
  });
}
