import { id, toBeHex } from 'ethers';
import { hasOpcode, isEip1167 } from '../../evm/bytecode.ts';
import type { RpcClient, RpcRequest } from '../../evm/rpc.ts';
import { normalizeCode } from '../bytecode/index.ts';
import type { Evidence, ProxyInfo, ProxyKind } from '../types.ts';
import { isExecutionFailure } from './access-control.ts';

/**
 * Proxy resolution: which contract really holds the logic behind an address. Covers EIP-1167
 * clones (read from the code), EIP-1967 implementation and beacon slots, EIP-1822 (UUPS
 * "PROXIABLE"), OpenZeppelin's legacy transparent proxy slots, and custom `implementation()`
 * getters. Works on any node: eth_getStorageAt, eth_getCode and eth_call only.
 */

/** keccak256(label) - 1, the EIP-1967 way of choosing a slot no compiler hands out. */
const eip1967Slot = (label: string) => toBeHex(BigInt(id(label)) - 1n, 32);

export const SLOTS = {
  eip1967Implementation: eip1967Slot('eip1967.proxy.implementation'),
  eip1967Beacon: eip1967Slot('eip1967.proxy.beacon'),
  eip1967Admin: eip1967Slot('eip1967.proxy.admin'),
  /** EIP-1822: keccak256("PROXIABLE"), no minus one. */
  eip1822Proxiable: id('PROXIABLE'),
  /** OpenZeppelin (ZeppelinOS) proxies before EIP-1967. */
  ozImplementation: id('org.zeppelinos.proxy.implementation'),
  ozAdmin: id('org.zeppelinos.proxy.admin'),
} as const;

const SELECTORS = {
  implementation: id('implementation()').slice(0, 10),
  getImplementation: id('getImplementation()').slice(0, 10),
  /** Some beacons name their getter childImplementation() (e.g. Aragon). */
  childImplementation: id('childImplementation()').slice(0, 10),
} as const;

/** A proxy of a proxy of … is followed this far; real chains stop at two. */
export const MAX_PROXY_HOPS = 4;
const DELEGATECALL = 0xf4;
const EIP1167_ADDRESS_START = 20; // hex characters: the 10-byte prefix
const ADDRESS_HEX = 40;

export interface ProxyHop {
  proxy: string;
  kind: ProxyKind;
  implementation: string;
  admin: string | null;
}

export interface ProxyResolution {
  info: ProxyInfo;
  hops: ProxyHop[];
  /** Runtime code of the final implementation (0x hex), or null for a non-proxy or a missing one. */
  implementationCode: string | null;
}

/** The implementation an EIP-1167 minimal proxy delegates to, or null. */
export function eip1167Implementation(code: string): string | null {
  const hex = normalizeCode(code);
  if (!hex || !isEip1167(hex)) return null;
  return `0x${hex.slice(EIP1167_ADDRESS_START, EIP1167_ADDRESS_START + ADDRESS_HEX)}`;
}

/** An address stored in a 32-byte word: upper 12 bytes zero and not zero itself; else null. */
export function wordToAddress(word: unknown): string | null {
  if (typeof word !== 'string' || !/^0x[0-9a-fA-F]+$/.test(word)) return null;
  let n: bigint;
  try {
    n = BigInt(word.length > 66 ? word.slice(0, 66) : word);
  } catch {
    return null;
  }
  if (n === 0n || n >> 160n !== 0n) return null;
  return `0x${n.toString(16).padStart(ADDRESS_HEX, '0')}`;
}

/** What can be said from the code alone: EIP-1167 clones (everything else needs the chain). */
export function proxyFromCode(code: string): ProxyInfo {
  const implementation = eip1167Implementation(code);
  if (!implementation)
    return { is_proxy: false, kind: null, implementation: null, admin: null, evidence: [] };
  return {
    is_proxy: true,
    kind: 'eip1167',
    implementation,
    admin: null,
    evidence: [
      {
        kind: 'bytecode',
        detail: `EIP-1167 minimal proxy: every call is delegated to ${implementation}, fixed in the code (not upgradeable)`,
      },
    ],
  };
}

interface HopResult {
  hop: ProxyHop;
  evidence: Evidence[];
}

async function callAddress(
  rpc: RpcClient,
  to: string,
  data: string,
  blockTag: string,
): Promise<string | null> {
  // A batch of one: a failing call comes back as an outcome, not retried as a node failure.
  const [outcome] = await rpc.batch<string>([
    { method: 'eth_call', params: [{ to, data }, blockTag] },
  ]);
  if (!outcome) return null;
  if (outcome.ok) return wordToAddress(outcome.result);
  if (isExecutionFailure(outcome.error) || outcome.error.kind === 'invalid-request') return null;
  throw outcome.error;
}

/** One step: is `address` (with `code`) a proxy, and of which implementation? */
async function resolveHop(
  rpc: RpcClient,
  address: string,
  code: string,
  blockTag: string,
): Promise<HopResult | null> {
  const clone = eip1167Implementation(code);
  if (clone) {
    return {
      hop: { proxy: address, kind: 'eip1167', implementation: clone, admin: null },
      evidence: [
        {
          kind: 'bytecode',
          detail: `${address} is an EIP-1167 minimal proxy of ${clone} (fixed in the code)`,
        },
      ],
    };
  }
  // A contract that never delegates cannot be a proxy, whatever its storage holds (an
  // implementation may write the EIP-1967 slot into its own storage when used directly).
  if (!delegates(code)) return null;
  const stored = await readProxySlots(rpc, address, blockTag);
  return (
    (await eip1967Hop(rpc, address, stored, blockTag)) ??
    legacySlotHop(address, stored) ??
    (await getterHop(rpc, address, blockTag))
  );
}

type ProxySlots = Partial<Record<keyof typeof SLOTS, string | null>>;

/**
 * What resolveProxy asks first of `address` whose runtime code is `code`: its known proxy slots,
 * or nothing when the code is an EIP-1167 clone or never delegates (neither reads the slots).
 */
export function proxySlotRequests(address: string, blockTag: string, code?: string): RpcRequest[] {
  if (code !== undefined && (eip1167Implementation(code) || !delegates(code))) return [];
  return Object.values(SLOTS).map((slot) => ({
    method: 'eth_getStorageAt',
    params: [address, slot, blockTag],
  }));
}

const delegates = (code: string) => hasOpcode(normalizeCode(code) ?? '', DELEGATECALL);

/** The address each known proxy slot of `address` holds (null for none). */
async function readProxySlots(
  rpc: RpcClient,
  address: string,
  blockTag: string,
): Promise<ProxySlots> {
  const slotNames = Object.keys(SLOTS) as (keyof typeof SLOTS)[];
  const outcomes = await rpc.batch<string>(proxySlotRequests(address, blockTag));
  const stored: ProxySlots = {};
  slotNames.forEach((name, i) => {
    const o = outcomes[i]!;
    if (!o.ok) throw o.error;
    stored[name] = wordToAddress(o.result);
  });
  return stored;
}

/** EIP-1967: the implementation slot, else the beacon's implementation. */
async function eip1967Hop(
  rpc: RpcClient,
  address: string,
  stored: ProxySlots,
  blockTag: string,
): Promise<HopResult | null> {
  if (stored.eip1967Implementation) {
    const admin = stored.eip1967Admin ?? null;
    return {
      hop: { proxy: address, kind: 'eip1967', implementation: stored.eip1967Implementation, admin },
      evidence: [
        {
          kind: 'storage',
          detail:
            `EIP-1967 implementation slot of ${address} holds ${stored.eip1967Implementation}` +
            (admin
              ? `; the admin slot holds ${admin} (transparent proxy: that address can upgrade)`
              : ''),
        },
      ],
    };
  }
  if (stored.eip1967Beacon) {
    const beacon = stored.eip1967Beacon;
    const implementation =
      (await callAddress(rpc, beacon, SELECTORS.implementation, blockTag)) ??
      (await callAddress(rpc, beacon, SELECTORS.childImplementation, blockTag));
    if (implementation) {
      return {
        hop: {
          proxy: address,
          kind: 'eip1967-beacon',
          implementation,
          admin: stored.eip1967Admin ?? null,
        },
        evidence: [
          {
            kind: 'storage',
            detail: `EIP-1967 beacon slot of ${address} holds ${beacon}, whose implementation() is ${implementation}`,
          },
        ],
      };
    }
  }
  return null;
}

/** EIP-1822's PROXIABLE slot and OpenZeppelin's legacy (zos) slots. */
function legacySlotHop(address: string, stored: ProxySlots): HopResult | null {
  if (stored.eip1822Proxiable) {
    return {
      hop: {
        proxy: address,
        kind: 'eip1822',
        implementation: stored.eip1822Proxiable,
        admin: null,
      },
      evidence: [
        {
          kind: 'storage',
          detail: `EIP-1822 PROXIABLE slot of ${address} holds ${stored.eip1822Proxiable}`,
        },
      ],
    };
  }
  if (stored.ozImplementation) {
    const admin = stored.ozAdmin ?? null;
    return {
      hop: {
        proxy: address,
        kind: 'oz-transparent',
        implementation: stored.ozImplementation,
        admin,
      },
      evidence: [
        {
          kind: 'storage',
          detail: `OpenZeppelin (zos) implementation slot of ${address} holds ${stored.ozImplementation}${admin ? `; its admin slot holds ${admin}` : ''}`,
        },
      ],
    };
  }
  return null;
}

/** A delegating contract whose implementation() or getImplementation() names another. */
async function getterHop(
  rpc: RpcClient,
  address: string,
  blockTag: string,
): Promise<HopResult | null> {
  for (const selector of [SELECTORS.implementation, SELECTORS.getImplementation]) {
    const implementation = await callAddress(rpc, address, selector, blockTag);
    if (implementation && implementation !== address) {
      return {
        hop: { proxy: address, kind: 'custom-getter', implementation, admin: null },
        evidence: [
          {
            kind: 'call',
            detail: `${address} delegates calls and its ${selector === SELECTORS.implementation ? 'implementation()' : 'getImplementation()'} returns ${implementation}`,
          },
        ],
      };
    }
  }
  return null;
}

/**
 * Follows proxies from `address` (whose runtime code is `code`) to the contract that holds the
 * logic, at most MAX_PROXY_HOPS deep; a loop (a proxy that points back) stops the walk.
 */
export async function resolveProxy(
  rpc: RpcClient,
  input: { address: string; code: string; blockTag?: string },
): Promise<ProxyResolution> {
  const blockTag = input.blockTag ?? 'latest';
  const start = input.address.toLowerCase();
  const hops: ProxyHop[] = [];
  const evidence: Evidence[] = [];
  const visited = new Set([start]);
  let current = start;
  let code = input.code;
  let implementationCode: string | null = null;
  for (let depth = 0; depth < MAX_PROXY_HOPS; depth++) {
    const step = await resolveHop(rpc, current, code, blockTag);
    if (!step) break;
    hops.push(step.hop);
    evidence.push(...step.evidence);
    const next = step.hop.implementation;
    if (visited.has(next)) {
      evidence.push({
        kind: 'storage',
        detail: `proxy loop: ${current} points back to ${next}; not followed`,
      });
      implementationCode = null;
      break;
    }
    visited.add(next);
    const nextCode = await rpc.request<string>('eth_getCode', [next, blockTag]);
    if (!nextCode || nextCode === '0x') {
      evidence.push({
        kind: 'storage',
        detail: `implementation ${next} has no code (destroyed, or not deployed yet)`,
      });
      implementationCode = null;
      break;
    }
    implementationCode = nextCode;
    current = next;
    code = nextCode;
    if (depth === MAX_PROXY_HOPS - 1)
      evidence.push({
        kind: 'storage',
        detail: `proxy chain longer than ${MAX_PROXY_HOPS} hops; stopped at ${next}`,
      });
  }
  if (hops.length === 0)
    return {
      info: { is_proxy: false, kind: null, implementation: null, admin: null, evidence: [] },
      hops,
      implementationCode: null,
    };
  const first = hops[0]!;
  const last = hops[hops.length - 1]!;
  return {
    info: {
      is_proxy: true,
      kind: first.kind,
      implementation: last.implementation,
      admin: first.admin,
      evidence,
    },
    hops,
    implementationCode,
  };
}
