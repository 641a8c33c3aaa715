import { id, toBeHex } from 'ethers';
import type { RpcClient, RpcRequest } from '../../evm/rpc.ts';
import type { Evidence, ExtractedFunction, OwnershipInfo } from '../types.ts';
import {
  type CallOutcome,
  functionLabel,
  isExecutionFailure,
  PROBE_GAS,
  type ProbeRequest,
  probeCalls,
  probeRequests,
  STRANGER,
} from './access-control.ts';
import { SLOTS } from './proxy.ts';
import { DEFAULT_ADMIN_ROLE, type RoleReading } from './roles.ts';

/**
 * Ownership: who owns the token (owner(), getOwner(), the EIP-1967 admin slot), whether that is a
 * renounce (zero or a dead address), and whether a renounce is fake: another address still held
 * in storage that can still call the privileged functions. A hidden owner is claimed only when
 * proven: an eth_call from that address to a function that reverts for a stranger succeeds.
 * Whether what it can call is a power over holders is risk.ts's decision (docs/risk-model.md).
 */

/** Addresses nobody controls: ownership handed to one of them is given up. */
export const DEAD_ADDRESSES: ReadonlySet<string> = new Set([
  '0x0000000000000000000000000000000000000000',
  '0x0000000000000000000000000000000000000001',
  '0x000000000000000000000000000000000000dead',
  '0xdead000000000000000000000000000000000000',
  '0xdead000000000000000042069420694206942069',
  '0xdeaddeaddeaddeaddeaddeaddeaddeaddeaddead',
]);
export const isDeadAddress = (address: string) => DEAD_ADDRESSES.has(address.toLowerCase());

const OWNER_SELECTOR = id('owner()').slice(0, 10);
const GET_OWNER_SELECTOR = id('getOwner()').slice(0, 10);
/** Storage slots scanned for addresses when looking for a second privileged address. */
export const SCANNED_SLOTS = 16;
/** At most this many candidate addresses are tested (each costs a few eth_calls). */
export const MAX_HIDDEN_CANDIDATES = 8;
/** A word holding an address has its low 160 bits set; anything above that is a small packed flag at most. */
const MAX_PACKED_HIGH_BITS = 1n << 16n;
/** Random-looking addresses are above this; small numbers (counters, amounts) are not addresses. */
const MIN_ADDRESS_VALUE = 1n << 96n;
const ADDRESS_MASK = (1n << 160n) - 1n;

export interface OwnerReading {
  owner: string | null;
  source: OwnershipInfo['owner_source'];
  /** Other addresses that claimed ownership (getOwner() or the admin slot disagreeing with owner()). */
  others: { address: string; source: string }[];
  evidence: Evidence[];
}

/** A 32-byte answer holding an address (zero included); null when the answer is not one. */
export function decodeAddress(word: unknown): string | null {
  if (typeof word !== 'string' || !/^0x[0-9a-fA-F]{64,}$/.test(word)) return null;
  const n = BigInt(word.slice(0, 66));
  if (n >> 160n !== 0n) return null;
  return `0x${n.toString(16).padStart(40, '0')}`;
}

const toAddress = (n: bigint) => `0x${n.toString(16).padStart(40, '0')}`;

/** What readOwner asks: owner(), getOwner() and the EIP-1967 admin slot (they depend on nothing). */
export function ownerRequests(address: string, blockTag = 'latest'): RpcRequest[] {
  return [
    { method: 'eth_call', params: [{ to: address, data: OWNER_SELECTOR }, blockTag] },
    { method: 'eth_call', params: [{ to: address, data: GET_OWNER_SELECTOR }, blockTag] },
    { method: 'eth_getStorageAt', params: [address, SLOTS.eip1967Admin, blockTag] },
  ];
}

export async function readOwner(
  rpc: RpcClient,
  input: { address: string; blockTag?: string },
): Promise<OwnerReading> {
  const outcomes = await rpc.batch<string>(ownerRequests(input.address, input.blockTag));
  // A contract without owner() reverts or halts: that is an answer. Anything else is a node failure.
  for (const o of outcomes)
    if (!o.ok && !isExecutionFailure(o.error) && o.error.kind !== 'invalid-request') throw o.error;
  const value = (i: number) => {
    const o = outcomes[i]!;
    return o.ok ? decodeAddress(o.result) : null;
  };
  const viaOwner = value(0);
  const viaGetOwner = value(1);
  const adminWord = value(2);
  const viaAdmin = adminWord && adminWord !== toAddress(0n) ? adminWord : null;
  const readings: { address: string; source: 'owner()' | 'getOwner()' | 'admin-slot' }[] = [];
  if (viaOwner !== null) readings.push({ address: viaOwner, source: 'owner()' });
  if (viaGetOwner !== null) readings.push({ address: viaGetOwner, source: 'getOwner()' });
  if (viaAdmin !== null) readings.push({ address: viaAdmin, source: 'admin-slot' });
  if (readings.length === 0) {
    return {
      owner: null,
      source: null,
      others: [],
      evidence: [
        {
          kind: 'call',
          detail:
            'no owner: owner() and getOwner() answer no address and the EIP-1967 admin slot is empty',
        },
      ],
    };
  }
  const first = readings[0]!;
  const others = readings
    .slice(1)
    .filter((r) => r.address !== first.address && !isDeadAddress(r.address))
    .map((r) => ({ address: r.address, source: r.source }));
  const evidence: Evidence[] = readings.map((r) => ({
    kind: r.source === 'admin-slot' ? 'storage' : 'call',
    detail:
      r.source === 'admin-slot'
        ? `EIP-1967 admin slot holds ${r.address}`
        : `${r.source} returns ${r.address}`,
  }));
  return { owner: first.address, source: first.source, others, evidence };
}

export interface StorageCandidate {
  address: string;
  /** Where it was found, for evidence: "slot 0x5 (compared with the caller in the code)". */
  source: string;
}

/** A slot the code compares with the caller (access/caller-checks.ts), with the address's bit offset. */
export interface PrivilegedSlot {
  slot: string;
  shift: number;
}

/** The slots storageCandidates reads: those compared with the caller, then the first scanned. */
function candidateSlots(privilegedSlots: readonly PrivilegedSlot[]) {
  const compared = privilegedSlots.map((p) => ({
    slot: toBeHex(BigInt(p.slot), 32),
    shift: p.shift,
    compared: true,
  }));
  const scanned = Array.from({ length: SCANNED_SLOTS }, (_, i) => ({
    slot: toBeHex(i, 32),
    shift: 0,
    compared: false,
  }));
  return [...compared, ...scanned];
}

/** What storageCandidates asks (it depends only on the code's caller checks). */
export function candidateSlotRequests(
  address: string,
  blockTag = 'latest',
  privilegedSlots: readonly PrivilegedSlot[] = [],
): RpcRequest[] {
  return candidateSlots(privilegedSlots).map((s) => ({
    method: 'eth_getStorageAt',
    params: [address, s.slot, blockTag],
  }));
}

/**
 * Addresses held in storage that might be privileged: the slots the code compares with the caller
 * first (the strongest hint), then the first SCANNED_SLOTS slots.
 */
export async function storageCandidates(
  rpc: RpcClient,
  input: { address: string; blockTag?: string; privilegedSlots: readonly PrivilegedSlot[] },
): Promise<StorageCandidate[]> {
  const slots = candidateSlots(input.privilegedSlots);
  const outcomes = await rpc.batch<string>(
    candidateSlotRequests(input.address, input.blockTag, input.privilegedSlots),
  );
  const out: StorageCandidate[] = [];
  slots.forEach((s, i) => {
    const o = outcomes[i]!;
    if (!o.ok || typeof o.result !== 'string' || !/^0x[0-9a-fA-F]+$/.test(o.result)) return;
    const word = BigInt(o.result);
    const shifted = word >> BigInt(s.shift);
    const value = shifted & ADDRESS_MASK;
    // Slots compared with the caller are addresses by construction; scanned ones must look like one.
    if (value === 0n) return;
    if (!s.compared && (value < MIN_ADDRESS_VALUE || shifted >> 160n >= MAX_PACKED_HIGH_BITS))
      return;
    const slotLabel = `0x${BigInt(s.slot).toString(16)}`;
    out.push({
      address: toAddress(value),
      source: s.compared
        ? `storage slot ${slotLabel}, which the code compares with the caller`
        : `storage slot ${slotLabel}`,
    });
  });
  return out;
}

export interface GatedFunction {
  fn: ExtractedFunction;
  signature?: string;
  /** The stranger's outcomes, one per argument variant (all reverts). */
  stranger: readonly CallOutcome[];
  /**
   * Its family gives power over holders or the contract (not taking ownership, a fee wallet's
   * swap): a candidate that can call one is preferred over one that only succeeds elsewhere.
   */
  carriesPower?: boolean;
}

export interface HiddenOwnerResult {
  hidden_owner: string | null;
  /** Selectors the hidden owner was shown to be able to call. */
  selectors: string[];
  evidence: Evidence[];
}

/**
 * How far ahead a time-locked call is tried again: past the locks scam tokens use (SafeMoon's
 * lock(time), release dates), as far as the labelled development set was checked.
 */
export const TIME_LOCK_LOOKAHEAD_SECONDS = 400 * 24 * 3600;

/**
 * Tests each candidate: an eth_call from it to each gated function (one that reverts for a
 * stranger and whose code checks the caller). Only a success proves the candidate privileged. A
 * revert with another reason than the stranger's is a guess, not proof: the caller check may have
 * passed, or the candidate (a pair, a router, a fee wallet) may just fail elsewhere, and honest
 * tokens were called hidden-owned on that guess. Such a call is tried once more with the block
 * time TIME_LOCK_LOOKAHEAD_SECONDS ahead (a time lock still running): a success then, while a
 * stranger still reverts, is proof.
 */
export async function proveHiddenOwner(
  rpc: RpcClient,
  input: {
    address: string;
    blockTag?: string;
    candidates: readonly StorageCandidate[];
    gated: readonly GatedFunction[];
  },
): Promise<HiddenOwnerResult> {
  const blockTag = input.blockTag ?? 'latest';
  if (input.candidates.length === 0 || input.gated.length === 0)
    return { hidden_owner: null, selectors: [], evidence: [] };
  const requests = input.candidates.flatMap((c) =>
    input.gated.flatMap((g) => probeRequests(input.address, c.address, g.fn)),
  );
  const outcomes = await probeCalls(rpc, requests, blockTag);
  const perCandidate = input.gated.length * 2;
  const successes = input.candidates.map((_, ci) =>
    input.gated.filter((_, gi) =>
      outcomes.slice(ci * perCandidate + gi * 2, ci * perCandidate + gi * 2 + 2).some((x) => x.ok),
    ),
  );
  // Candidates come strongest hint first; the first that can call a power function wins, else the
  // first with any success (a pending owner or a fee wallet must not hide a minting dev address).
  const powered = successes.findIndex((s) => s.some((g) => g.carriesPower));
  const chosen = powered >= 0 ? powered : successes.findIndex((s) => s.length > 0);
  let immediate: HiddenOwnerResult | null = null;
  if (chosen >= 0) {
    const candidate = input.candidates[chosen]!;
    const succeeded = successes[chosen]!;
    const names = succeeded.map((g) => functionLabel(g.fn.selector, g.signature)).join(', ');
    const evidence: Evidence[] = [
      {
        kind: 'simulation',
        selector: succeeded[0]!.fn.selector,
        detail:
          `${candidate.address}, held in ${candidate.source}, can call ${names} ` +
          '(eth_call succeeds from it and reverts for a stranger)',
      },
    ];
    const selectors = succeeded.map((g) => g.fn.selector);
    immediate = { hidden_owner: candidate.address, selectors, evidence };
    if (powered >= 0) return immediate;
  }
  // Past the caller check, failed later: another revert reason than the stranger's.
  const otherReason = (gate: GatedFunction, o: CallOutcome, i: number) =>
    o.error === null &&
    o.revert !== null &&
    gate.stranger[i]?.error === null &&
    o.revert !== gate.stranger[i]?.revert;
  const passed = input.candidates.flatMap((candidate, ci) =>
    input.gated
      .filter((gate, gi) =>
        outcomes
          .slice(ci * perCandidate + gi * 2, ci * perCandidate + gi * 2 + 2)
          .some((o, i) => otherReason(gate, o, i)),
      )
      .map((gate) => ({ candidate, gate })),
  );
  const none: HiddenOwnerResult = { hidden_owner: null, selectors: [], evidence: [] };
  // A success without power (a fee wallet's swap) must not hide a time-locked way back.
  const later =
    passed.length > 0 ? await proveAfterTimeLock(rpc, input.address, blockTag, passed) : none;
  return later.hidden_owner !== null ? later : (immediate ?? none);
}

/** The calls that got past the caller check, tried again later in time (see proveHiddenOwner). */
async function proveAfterTimeLock(
  rpc: RpcClient,
  address: string,
  blockTag: string,
  passed: readonly { candidate: StorageCandidate; gate: GatedFunction }[],
): Promise<HiddenOwnerResult> {
  const none: HiddenOwnerResult = { hidden_owner: null, selectors: [], evidence: [] };
  const block = await rpc
    .request<{ timestamp?: string } | null>('eth_getBlockByNumber', [blockTag, false])
    .catch(() => null);
  if (!block?.timestamp) return none;
  const later = toBeHex(BigInt(block.timestamp) + BigInt(TIME_LOCK_LOOKAHEAD_SECONDS));
  const asCall = (r: ProbeRequest) => ({
    method: 'eth_call',
    params: [
      { from: r.from, to: r.to, data: r.data, gas: toBeHex(PROBE_GAS) },
      blockTag,
      {},
      { time: later },
    ],
  });
  const requests = passed.flatMap(({ candidate, gate }) => [
    ...probeRequests(address, candidate.address, gate.fn),
    ...probeRequests(address, STRANGER, gate.fn),
  ]);
  // A node without block overrides answers an error for each call: then nothing is proven.
  const outcomes = await rpc.batch<string>(requests.map(asCall)).catch(() => []);
  for (let i = 0; i < passed.length; i++) {
    const [own0, own1, stranger0, stranger1] = outcomes.slice(i * 4, i * 4 + 4);
    const strangerReverts = [stranger0, stranger1].every(
      (o) => o !== undefined && !o.ok && isExecutionFailure(o.error),
    );
    if (!(own0?.ok || own1?.ok) || !strangerReverts) continue;
    const { candidate, gate } = passed[i]!;
    const evidence: Evidence[] = [
      {
        kind: 'simulation',
        selector: gate.fn.selector,
        detail:
          `${candidate.address}, held in ${candidate.source}, can call ` +
          `${functionLabel(gate.fn.selector, gate.signature)} once a time lock runs out (eth_call ` +
          `with the block time ${TIME_LOCK_LOOKAHEAD_SECONDS / 86_400} days ahead succeeds from it ` +
          'and reverts for a stranger)',
      },
    ];
    return { hidden_owner: candidate.address, selectors: [gate.fn.selector], evidence };
  }
  return none;
}

/**
 * The owner reading completed by AccessControl's roles (access/roles.ts) when there is no owner
 * getter: the DEFAULT_ADMIN_ROLE holder is the owner; with every role given up, nobody is.
 */
export function withRoles(reading: OwnerReading, roles: RoleReading | null): OwnerReading {
  if (!roles || reading.owner !== null) return reading;
  const admin = roles.holders.find((h) => h.role === DEFAULT_ADMIN_ROLE);
  return {
    ...reading,
    owner: admin?.account ?? null,
    source: admin ? 'default-admin-role' : null,
    evidence: [...reading.evidence, ...roles.evidence],
  };
}

/** Assembles OwnershipInfo from the reading and the hidden-owner test. */
export function ownershipInfo(
  reading: OwnerReading,
  hidden: HiddenOwnerResult,
  roles: RoleReading | null = null,
): OwnershipInfo {
  const rolesRenounced = roles !== null && roles.holders.length === 0;
  const renounced =
    (reading.owner !== null && isDeadAddress(reading.owner)) ||
    (reading.owner === null && rolesRenounced);
  const evidence = [...reading.evidence];
  if (renounced)
    evidence.push({
      kind: 'call',
      detail: `ownership renounced: the owner is ${reading.owner}, an address nobody controls`,
    });
  evidence.push(...hidden.evidence);
  const fake = renounced && hidden.hidden_owner !== null;
  if (fake)
    evidence.push({
      kind: 'simulation',
      detail: `fake renounce: ${reading.source} reports ${reading.owner}, yet ${hidden.hidden_owner} keeps privileged access`,
    });
  return {
    owner: reading.owner,
    owner_source: reading.source,
    renounced,
    hidden_owner: hidden.hidden_owner,
    hidden_owner_selectors: hidden.selectors,
    fake_renounce: fake,
    ...(roles ? { roles_renounced: rolesRenounced } : {}),
    evidence,
  };
}
