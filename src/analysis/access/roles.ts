import { AbiCoder, id } from 'ethers';
import type { RpcClient } from '../../evm/rpc.ts';
import type { Evidence, ExtractedFunction } from '../types.ts';

/**
 * AccessControl's roles (OpenZeppelin 4 and 5, upgradeable or not): who holds a role now. The
 * role table is a mapping no storage scan can list, so the grants are read from the token's own
 * RoleGranted events and each (role, account) pair is confirmed with `hasRole` at the block: a
 * revoke or renounce since is seen without replaying the events. DEFAULT_ADMIN_ROLE (zero)
 * grants every other role by default, so its holder is the contract's admin, its owner in all
 * but name.
 */

const HAS_ROLE = id('hasRole(bytes32,address)').slice(0, 10);
const ROLE_GRANTED = id('RoleGranted(bytes32,address,address)');
export const DEFAULT_ADMIN_ROLE = `0x${'0'.repeat(64)}`;
/** Grants confirmed per token (each is one eth_call in one batch). */
const MAX_ROLE_PAIRS = 16;

export interface RoleReading {
  /** Current holders, DEFAULT_ADMIN_ROLE's first. Empty: every role ever granted was given up. */
  holders: { role: string; account: string }[];
  evidence: Evidence[];
}

/**
 * The current role holders, or null when the token has no `hasRole(bytes32,address)`, no grant
 * was ever logged (storage written otherwise: nothing is known), or the node would not say.
 */
export async function readRoles(
  rpc: RpcClient,
  input: { address: string; blockTag?: string; functions: readonly ExtractedFunction[] },
): Promise<RoleReading | null> {
  if (!input.functions.some((f) => `0x${f.selector}` === HAS_ROLE)) return null;
  const blockTag = input.blockTag ?? 'latest';
  const logs = await rpc
    .request<{ topics: string[] }[]>('eth_getLogs', [
      { address: input.address, topics: [ROLE_GRANTED], fromBlock: '0x0', toBlock: blockTag },
    ])
    .catch(() => null);
  if (!logs || logs.length === 0) return null;
  const pairs = new Map<string, { role: string; account: string }>();
  for (const log of logs) {
    const [, role, account] = log.topics;
    if (!role || !account) continue;
    const holder = { role: role.toLowerCase(), account: `0x${account.slice(-40).toLowerCase()}` };
    pairs.set(`${holder.role}/${holder.account}`, holder);
  }
  const candidates = [...pairs.values()].slice(0, MAX_ROLE_PAIRS);
  const coder = AbiCoder.defaultAbiCoder();
  const outcomes = await rpc.batch<string>(
    candidates.map((c) => ({
      method: 'eth_call',
      params: [
        {
          to: input.address,
          data: HAS_ROLE + coder.encode(['bytes32', 'address'], [c.role, c.account]).slice(2),
        },
        blockTag,
      ],
    })),
  );
  if (outcomes.some((o) => !o.ok)) return null;
  const holders = candidates
    .filter((_, i) => {
      const r = outcomes[i]!;
      return r.ok && typeof r.result === 'string' && BigInt(r.result.slice(0, 66)) === 1n;
    })
    .sort((a, b) => Number(b.role === DEFAULT_ADMIN_ROLE) - Number(a.role === DEFAULT_ADMIN_ROLE));
  const evidence: Evidence[] = [
    {
      kind: 'call',
      detail:
        holders.length === 0
          ? `every role granted (${candidates.length} RoleGranted pair${candidates.length > 1 ? 's' : ''}) was given up: hasRole answers false for each`
          : `role holders by hasRole: ${holders
              .slice(0, 4)
              .map(
                (h) =>
                  `${h.account} (${h.role === DEFAULT_ADMIN_ROLE ? 'DEFAULT_ADMIN_ROLE' : `role ${h.role.slice(0, 10)}…`})`,
              )
              .join(', ')}`,
    },
  ];
  return { holders, evidence };
}
