import type { AdminFamily, Evidence } from '../types.ts';
import type { FeeSlot } from './fee-slots.ts';
import type { TokenLayout } from './layout.ts';
import type { FlagRequirement, SlotWrites } from './state.ts';

/** The words of the capability walk, in a leaf file so that its parts can share them. */

export type Capability = 'mint' | 'leak' | 'limit';

export interface CapabilityFinding {
  selector: string;
  arguments: string;
  capability: Capability;
  family: AdminFamily;
  evidence: Evidence[];
  /** Flags the path to the effect needed, each with its value (capabilities/state.ts). */
  requires?: FlagRequirement[];
  /** A limit by swapping the contract that decides transfers (GoPlus's `external_call`). */
  externalCall?: boolean;
}

export interface CapabilityReport {
  layout: TokenLayout;
  findings: CapabilityFinding[];
  /** Selectors walked to the end: for these, no finding means none of the effects. */
  conclusive: string[];
  /** transfer() was walked to the end, so what it checks before failing is known. */
  limitsKnown: boolean;
  /** Privileged functions whose only limit-like write can just enable transfers. */
  oneWay: { selector: string; detail: string }[];
  /** What every function can write to each plain slot, on any path that succeeds. */
  slotWrites: SlotWrites;
  /** Fees transfers take as a share of the amount, with their privileged setters. */
  fees: FeeSlot[];
  /**
   * Every state-changing function but the holder's own was walked to the end, or cut only at
   * loops past their second turn: every plain-slot write any of them makes was seen.
   */
  walkedAll: boolean;
  steps: number;
}
