import { AbiCoder } from 'ethers';
import type { RpcClient, RpcError, RpcOutcome } from '../../evm/rpc.ts';
import {
  ARGUMENT_VARIANTS,
  type ArgumentVariant,
  addressFromLabel,
  describeProbeArguments,
  probeCalldata,
} from '../bytecode/index.ts';
import type { AccessControl, Evidence, ExtractedFunction } from '../types.ts';
import {
  type CallerCheck,
  type CodeModel,
  type WalkResult,
  walkFunction,
} from './caller-checks.ts';

/**
 * Who can call a function: owner-only, role, none or unknown. Two independent judgements:
 *
 * 1. the bytecode: a symbolic walk of the function (access/caller-checks.ts) finds the caller compared
 *    with a stored or hard-coded address (owner-only), looked up in a role or authorisation table
 *    (role), or shows that a path changes state without any such check (none);
 * 2. a simulation: eth_call from a stranger with plausible arguments, and from the owner.
 *    A stranger's success on a state-changing function means none; a stranger's revert where the
 *    owner succeeds (or fails differently, i.e. got past the check) means owner-only.
 *
 * The simulation wins when it is conclusive; otherwise the bytecode decides. Evidence keeps both.
 */

/** A fresh address with no balance, role or history: "a stranger". */
export const STRANGER = addressFromLabel('token-monitor.probe.stranger');
/** Probe calls get this much gas: plenty for a setter, bounded for a hostile contract. */
export const PROBE_GAS = 5_000_000;
/** eth_call probes go out in batches of this many. */
const PROBE_BATCH = 40;

export interface BytecodeVerdict {
  access: AccessControl;
  evidence: Evidence[];
  checks: CallerCheck[];
  walk: WalkResult;
}

export const functionLabel = (selector: string, signature?: string) =>
  signature ? `${signature} (0x${selector})` : `0x${selector}`;

export function describeCheck(c: CallerCheck): string {
  const who = c.origin ? 'tx.origin' : 'the caller';
  switch (c.kind) {
    case 'stored-address':
      return c.slot
        ? `compares ${who} with the address stored in slot ${c.slot}${c.shift ? ` (bits ${c.shift}..${c.shift + 159})` : ''}`
        : `compares ${who} with an address read from a computed storage slot`;
    case 'hardcoded-address':
      return `compares ${who} with the address ${c.address} written into the code`;
    case 'external-address':
      return `compares ${who} with an address returned by another contract (an owner registry or controller)`;
    case 'caller-hash':
      return c.slot
        ? `compares the hash of ${who} with a hash stored in slot ${c.slot}`
        : c.slot === null
          ? `compares the hash of ${who} with a hash read from a computed storage slot`
          : `compares the hash of ${who} with a hash written into the code`;
    case 'role-mapping':
      return `looks ${who} up in a role table (a mapping keyed by role and account, AccessControl-style) and branches on it`;
    case 'caller-mapping':
      return `looks ${who} up in a mapping of addresses (an authorisation list such as isAdmin[msg.sender]) and branches on it`;
    case 'external-call':
      return `asks another contract about ${who} (e.g. hasRole(role, msg.sender)) and branches on the answer`;
  }
}

/** The access control the bytecode alone shows for one function. */
export function bytecodeVerdict(
  model: CodeModel,
  fn: ExtractedFunction,
  label: string,
  budget?: number,
): BytecodeVerdict {
  const walk = walkFunction(model, probeCalldata(fn.selector, fn.arguments, 'ones'), budget);
  const { checks } = walk;
  const evidence: Evidence[] = checks.map((c) => ({
    kind: 'bytecode',
    selector: fn.selector,
    detail: `${label} ${describeCheck(c)} (JUMPI at pc ${c.pc})`,
  }));
  let access: AccessControl;
  if (
    checks.some(
      (c) =>
        c.kind === 'stored-address' ||
        c.kind === 'hardcoded-address' ||
        c.kind === 'external-address',
    )
  )
    access = 'owner-only';
  else if (checks.length > 0) access = 'role';
  else if (walk.complete && walk.unguardedStateChange) {
    access = 'none';
    evidence.push({
      kind: 'bytecode',
      selector: fn.selector,
      detail: `${label} changes state on a path with no check of the caller (all ${walk.paths} paths explored)`,
    });
  } else {
    access = 'unknown';
    const why = !walk.complete
      ? `the walk stopped at its budget (${walk.steps} steps, ${walk.paths} paths) without finding a caller check`
      : walk.externalCalls
        ? 'no caller check found, but it calls other contracts that may check'
        : 'no caller check found and no path changed state with the probe arguments';
    evidence.push({ kind: 'bytecode', selector: fn.selector, detail: `${label}: ${why}` });
  }
  return { access, evidence, checks, walk };
}

/**
 * The call ran and failed inside the EVM: a revert, or an exceptional halt (invalid jump or
 * opcode, stack underflow, out of gas). That is an answer about the contract, not a node failure.
 * Anvil reports halts as -32603 "EVM error InvalidJump", which the RPC client classifies as a
 * server error; recognised here by message (geth words them "invalid jump destination", …).
 */
const EXECUTION_FAILURE =
  /^evm error|invalid jump|invalid opcode|stack underflow|stack overflow|out of gas|execution reverted|revert/i;
export function isExecutionFailure(error: RpcError): boolean {
  return error.kind === 'revert' || EXECUTION_FAILURE.test(error.message);
}

export interface CallOutcome {
  ok: boolean;
  /** Revert data (0x hex, possibly '0x') when the call reverted. */
  revert: string | null;
  /** A failure that is not an answer (node error, timeout): the probe says nothing. */
  error: string | null;
}

export interface ProbeRequest {
  from: string;
  to: string;
  data: string;
}

/** eth_call each request (batched); reverts are answers, other failures are recorded as errors. */
export async function probeCalls(
  rpc: RpcClient,
  requests: readonly ProbeRequest[],
  blockTag: string,
): Promise<CallOutcome[]> {
  const out: CallOutcome[] = [];
  for (let i = 0; i < requests.length; i += PROBE_BATCH) {
    const chunk = requests.slice(i, i + PROBE_BATCH);
    let outcomes: RpcOutcome<string>[];
    try {
      outcomes = await rpc.batch<string>(
        chunk.map((r) => ({
          method: 'eth_call',
          params: [
            { from: r.from, to: r.to, data: r.data, gas: `0x${PROBE_GAS.toString(16)}` },
            blockTag,
          ],
        })),
      );
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      out.push(...chunk.map(() => ({ ok: false, revert: null, error: message })));
      continue;
    }
    for (const o of outcomes) {
      if (o.ok) out.push({ ok: true, revert: null, error: null });
      else if (isExecutionFailure(o.error))
        out.push({ ok: false, revert: revertData(o.error), error: null });
      else out.push({ ok: false, revert: null, error: o.error.message });
    }
  }
  return out;
}

function revertData(error: RpcError): string {
  const data = error.data;
  if (typeof data === 'string' && /^0x[0-9a-fA-F]*$/.test(data)) return data.toLowerCase();
  if (data && typeof data === 'object' && typeof (data as { data?: unknown }).data === 'string')
    return String((data as { data: string }).data).toLowerCase();
  // Some nodes put only a message; it still tells two different reverts apart.
  return error.message;
}

export interface FunctionProbes {
  /** One outcome per argument variant, in ARGUMENT_VARIANTS order. */
  stranger: CallOutcome[];
  /** The owner's outcomes, when an owner is known. */
  owner: CallOutcome[] | null;
  ownerAddress: string | null;
  /** The owner is the zero or a dead address (calls "from" it are only a simulation artefact). */
  ownerRenounced?: boolean;
}

/** The probe requests for one function from one sender, one per argument variant. */
export function probeRequests(to: string, from: string, fn: ExtractedFunction): ProbeRequest[] {
  return ARGUMENT_VARIANTS.map((variant) => ({
    from,
    to,
    data: probeCalldata(fn.selector, fn.arguments, variant),
  }));
}

export interface SimulationVerdict {
  /** null when the probes decide nothing. */
  access: AccessControl | null;
  evidence: Evidence[];
  /** Every stranger call reverted (the function is gated somehow). */
  strangerBlocked: boolean;
}

const ERROR_STRING = '0x08c379a0';
const PANIC = '0x4e487b71';
const MAX_REASON = 80;

/** Error(string) and Panic(uint256) as text; other revert data shortened. */
export function describeRevert(data: string): string {
  if (data === '0x' || data === '') return 'empty revert';
  try {
    if (data.startsWith(ERROR_STRING)) {
      const [reason] = AbiCoder.defaultAbiCoder().decode(
        ['string'],
        `0x${data.slice(10)}`,
      ) as unknown as [string];
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are stripped on purpose
      return `"${reason.replace(/[\u0000-\u001f]/g, '').slice(0, MAX_REASON)}"`;
    }
    if (data.startsWith(PANIC) && data.length >= 74)
      return `panic 0x${BigInt(`0x${data.slice(10, 74)}`).toString(16)}`;
  } catch {
    // fall through: undecodable data is shown raw
  }
  return data.startsWith('0x')
    ? `revert data ${data.length > 74 ? `${data.slice(0, 74)}…` : data}`
    : data.slice(0, MAX_REASON);
}

const shortRevert = (r: string | null) => (r === null ? '' : ` (${describeRevert(r)})`);

export function simulationVerdict(
  fn: ExtractedFunction,
  label: string,
  probes: FunctionProbes,
): SimulationVerdict {
  const evidence: Evidence[] = [];
  const answered = probes.stranger.filter((o) => o.error === null);
  if (answered.length === 0) return { access: null, evidence, strangerBlocked: false };
  const strangerOk = probes.stranger.findIndex((o) => o.ok);
  if (strangerOk >= 0) {
    const variant = ARGUMENT_VARIANTS[strangerOk]!;
    evidence.push({
      kind: 'simulation',
      selector: fn.selector,
      detail: `eth_call of ${label} from a stranger (${STRANGER}) with ${describeProbeArguments(fn.arguments, variant)} succeeded: anyone can call it`,
    });
    return { access: 'none', evidence, strangerBlocked: false };
  }
  const strangerBlocked = answered.length === probes.stranger.length;
  const owner = probes.owner;
  if (!strangerBlocked || !owner || !probes.ownerAddress) {
    evidence.push({
      kind: 'simulation',
      selector: fn.selector,
      detail: `eth_call of ${label} from a stranger reverted${shortRevert(answered[0]!.revert)}`,
    });
    return { access: null, evidence, strangerBlocked };
  }
  const ownerName = probes.ownerRenounced
    ? `recorded owner ${probes.ownerAddress} (renounced: no one can send from it)`
    : `owner ${probes.ownerAddress}`;
  const ownerOk = owner.findIndex((o) => o.ok);
  if (ownerOk >= 0) {
    const variant = ARGUMENT_VARIANTS[ownerOk]!;
    evidence.push({
      kind: 'simulation',
      selector: fn.selector,
      detail: `eth_call of ${label} with ${describeProbeArguments(fn.arguments, variant)} reverted for a stranger (${STRANGER})${shortRevert(probes.stranger[ownerOk]!.revert)} but succeeded from the ${ownerName}`,
    });
    return { access: 'owner-only', evidence, strangerBlocked };
  }
  // The owner got past the check and failed later (different reason): still gated on the caller.
  const differs = owner.findIndex(
    (o, i) =>
      o.error === null &&
      probes.stranger[i]!.error === null &&
      o.revert !== probes.stranger[i]!.revert,
  );
  if (differs >= 0) {
    evidence.push({
      kind: 'simulation',
      selector: fn.selector,
      detail: `eth_call of ${label} reverted for a stranger (${STRANGER})${shortRevert(probes.stranger[differs]!.revert)} and for the ${ownerName} for another reason${shortRevert(owner[differs]!.revert)}: the caller decides`,
    });
    return { access: 'owner-only', evidence, strangerBlocked };
  }
  evidence.push({
    kind: 'simulation',
    selector: fn.selector,
    detail: `eth_call of ${label} reverted alike for a stranger and for the ${ownerName}${shortRevert(answered[0]!.revert)}: inconclusive`,
  });
  return { access: null, evidence, strangerBlocked };
}

/** Simulation first when conclusive, else the bytecode; a role the bytecode saw stays a role. */
export function combineVerdicts(
  bytecode: BytecodeVerdict,
  simulation: SimulationVerdict | null,
): { access: AccessControl; evidence: Evidence[] } {
  const evidence = [...(simulation?.evidence ?? []), ...bytecode.evidence];
  const sim = simulation?.access ?? null;
  if (sim === 'none') return { access: 'none', evidence };
  if (sim === 'owner-only')
    return { access: bytecode.access === 'role' ? 'role' : 'owner-only', evidence };
  if (bytecode.access === 'none' && simulation?.strangerBlocked) {
    // The code has no caller check, yet a stranger cannot call it: something else stops it.
    return { access: 'unknown', evidence };
  }
  return { access: bytecode.access, evidence };
}

export type { ArgumentVariant };
