import { id } from 'ethers';
import { catalogEntry } from '../catalog/index.ts';
import { type BehaviourFinding, findingToAdminFunction } from '../simulation/index.ts';
import type { AdminFamily, AdminFunction, Evidence, StaticAnalysis } from '../types.ts';

/**
 * Who can still use an admin function, and which powers it gives over holders: the proof rules
 * risk.ts scores and hints.ts reports (docs/risk-model.md, "Risk levels" and "Ownership and
 * renounce"). Pure: it reads the static analysis and the behaviour findings, nothing else.
 */

/**
 * The powers that set a floor under the level, by the family of the function that grants them.
 * Pause counts as a trading switch: both stop every holder from selling.
 */
export type HolderPower = 'mint' | 'blacklist' | 'balance rewrite' | 'trading switch' | 'siphon';
export const POWER_OF: Partial<Record<AdminFamily, HolderPower>> = {
  mint: 'mint',
  blacklist: 'blacklist',
  'balance-change': 'balance rewrite',
  'burn-from': 'balance rewrite',
  'trading-switch': 'trading switch',
  pause: 'trading switch',
  'fee-siphon': 'siphon',
};

/**
 * Families whose function, called with success by an address owner() does not name, proves a
 * hidden owner: a power over holders (the families risk.ts weighs at 5 points or more), or
 * taking ownership back (SafeMoon's unlock()). A fee wallet that can only swap the collected
 * fees or rescue stuck ETH (withdraw, fee-exclusion) holds no power over holders.
 */
export const PROOF_FAMILIES: ReadonlySet<AdminFamily> = new Set<AdminFamily>([
  'balance-change',
  'burn-from',
  'mint',
  'upgrade',
  'blacklist',
  'pause',
  'fee',
  'fee-siphon',
  'trading-switch',
  'max-tx',
  'whitelist',
  'router-pair',
  'ownership-transfer',
]);

/**
 * Whether a successful call of a function of this family proves a privileged address. Taking
 * ownership (`ownership-transfer`) proves one only when owner() names no live owner: after a
 * renounce it is a way back (SafeMoon's unlock(), a pending transfer the renounce left behind).
 * Beside a live owner it is Ownable2Step's pending owner accepting what the owner offered: it
 * holds no power until it is the owner, and then owner() names it.
 */
export const provesPrivilege = (family: AdminFamily, ownerLive: boolean): boolean =>
  PROOF_FAMILIES.has(family) && !(ownerLive && family === 'ownership-transfer');

/**
 * ERC20Burnable's burnFrom spends the holder's allowance: its caller check is a lookup of
 * allowance[holder][msg.sender], which reads like an authorisation list. It is a power over
 * other holders only when reserved to one stored address (owner-only).
 */
const STANDARD_BURN_FROM = id('burnFrom(address,uint256)').slice(2, 10);

/**
 * Admin functions from the catalog and from behaviour, one list. A function the static analysis
 * lists keeps its entries, except that a behaviour `fee` finding joins an uncatalogued setter
 * (the fee cap search, static/fee-caps.ts, listed it by its effect): the probes add the sell tax
 * at its cap.
 */
export function allAdminFunctions(input: ProofInput): AdminFunction[] {
  const catalogued = input.static?.admin_functions ?? [];
  const listed = new Set(catalogued.map((f) => f.selector));
  const namedFees = new Set(
    catalogued
      .filter((f) => f.family === 'fee' && catalogEntry(f.selector) !== undefined)
      .map((f) => f.selector),
  );
  const joins = (b: BehaviourFinding) =>
    !listed.has(b.selector) || (b.family === 'fee' && !namedFees.has(b.selector));
  return [...catalogued, ...input.behaviour.filter(joins).map(findingToAdminFunction)];
}

export interface HiddenOwnerProof {
  /** The privileged address owner() does not name. */
  address: string;
  evidence: Evidence[];
}

/**
 * Proof of a hidden owner: owner() (or getOwner(), or the EIP-1967 admin slot) names an address
 * — a live one or a renounce — and another address's call of a power function succeeded where a
 * stranger's reverted. A contract without any owner getter hides nothing behind one: its proven
 * admin (a MiniMe controller, an adminWallet) is reported as the owner address, not as hidden.
 */
export interface ProofInput {
  static: StaticAnalysis | null;
  behaviour: readonly BehaviourFinding[];
}

export function hiddenOwnerProof(input: ProofInput): HiddenOwnerProof | null {
  const ownership = input.static?.ownership ?? null;
  if (!ownership || (ownership.owner === null && !ownership.renounced)) return null;
  return privilegedAddressProof(input);
}

/**
 * An address other than the live owner whose call of a power function succeeded where a
 * stranger's reverted — found by the static probe (ownership.hidden_owner and the selectors it
 * called) or by a behaviour probe that saw the power take effect. A guess (a revert for another
 * reason, an address in storage) is not proof, and neither is a call that carries no power over
 * holders.
 */
export function privilegedAddressProof(input: ProofInput): HiddenOwnerProof | null {
  const ownership = input.static?.ownership ?? null;
  const liveOwner =
    ownership && !ownership.renounced ? (ownership.owner?.toLowerCase() ?? null) : null;
  const proves = (family: AdminFamily) => provesPrivilege(family, liveOwner !== null);
  const powerful = new Map(
    allAdminFunctions(input)
      .filter((f) => proves(f.family))
      .map((f) => [f.selector, f]),
  );
  const named = (address: string) => liveOwner !== null && address.toLowerCase() === liveOwner;
  const evidence: Evidence[] = [];
  let address: string | null = null;
  const stored = ownership?.hidden_owner ?? null;
  if (stored && !named(stored)) {
    const called = (ownership!.hidden_owner_selectors ?? [])
      .map((s) => powerful.get(s))
      .filter((f): f is AdminFunction => f !== undefined);
    if (called.length > 0) {
      address = stored;
      const proofs = ownership!.evidence.filter(
        (e) => e.kind === 'simulation' && e.detail.includes(stored),
      );
      const owner = liveOwner ? `owner() (${liveOwner})` : 'owner()';
      const names = called.map((f) => `${f.signature} (${f.family})`).join(', ');
      evidence.push(...proofs, {
        kind: 'simulation',
        selector: called[0]!.selector,
        detail: `${stored}, which ${owner} does not name, can call ${names}`,
      });
    }
  }
  for (const b of input.behaviour) {
    if (!proves(b.family) || b.caller_role === 'owner' || named(b.caller)) continue;
    address ??= b.caller;
    const when = ownership?.renounced ? ' after the renounce' : '';
    evidence.push({
      kind: 'simulation',
      selector: b.selector,
      detail:
        `0x${b.selector} (${b.family}) succeeds for ${b.caller} (${b.caller_role}), which owner() ` +
        `does not name${when}; a stranger's call reverts`,
    });
  }
  return address ? { address, evidence } : null;
}

/** A real renounce: owner() is zero or dead and no other privileged address is proven. */
type Ownership = StaticAnalysis['ownership'] | null;

export const isRealRenounce = (ownership: Ownership, proof: HiddenOwnerProof | null): boolean =>
  ownership?.renounced === true && proof === null;

/**
 * Whether someone can still call it. A real renounce kills owner-only functions, and those whose
 * access could not be decided (a stranger could not call them either, or they would be 'none'):
 * no privileged address is left to call them. Role-gated functions survive it: renouncing
 * owner() revokes no role; they die when every role ever granted was given up
 * (access/roles.ts), and no hidden holder is proven.
 */
export function isLive(
  fn: AdminFunction,
  ownership: Ownership,
  proof: HiddenOwnerProof | null = null,
): boolean {
  if (fn.access_control === 'role') return !(ownership?.roles_renounced === true && proof === null);
  if (fn.access_control !== 'owner-only' && fn.access_control !== 'unknown') return true;
  return !isRealRenounce(ownership, proof);
}

/** Whether the function gives power over other holders at all (see STANDARD_BURN_FROM). */
export const grantsPower = (fn: AdminFunction) =>
  !(fn.selector === STANDARD_BURN_FROM && fn.access_control !== 'owner-only');
