import { id, keccak256, zeroPadValue } from 'ethers';
import { loadArtifact } from '../../../contracts/artifacts.ts';

/**
 * The SlotWindow (contracts/src/service/SlotWindow.sol): a contract's storage slots read in the same
 * eth_call as calls to that contract. Placed by state override at the contract, with the
 * contract's own code moved to its shadow address: the window answers a read of slots, and runs
 * the contract's own code (DELEGATECALL) for any other call.
 */

const windowCode = loadArtifact('SlotWindow').deployedBytecode;
/** The first word of a slot read; the window compares it literally. */
const MAGIC = id('token-monitor.slot-window').slice(2);

/** Where the contract's own code goes while the window stands at its address. */
export const shadowOf = (address: string) => `0x${keccak256(zeroPadValue(address, 32)).slice(-40)}`;

/** The state overrides that put the window at `address` and its code at the shadow. */
export function windowOverrides(address: string, code: string): Record<string, { code: string }> {
  return { [address]: { code: windowCode }, [shadowOf(address)]: { code } };
}

/** Call data of a read of `slots` (hex quantities) through the window. */
export const windowRead = (slots: readonly string[]) =>
  `0x${MAGIC}${slots.map((s) => BigInt(s).toString(16).padStart(64, '0')).join('')}`;
