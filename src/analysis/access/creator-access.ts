import type { RpcClient } from '../../evm/rpc.ts';
import type { BehaviourFinding, PrivilegedCaller } from '../simulation/index.ts';
import type { StaticAnalysis } from '../types.ts';
import { functionLabel, probeCalls, probeRequests, STRANGER } from './access-control.ts';
import { PROOF_FAMILIES } from './privilege.ts';

/**
 * The creator's access to the catalogued gated functions. The behaviour probes call only
 * uncatalogued functions, and the static hidden-owner search only addresses held in plain slots
 * or in the code: a creator kept in a role table (`authorizations[creator]` of the BSC `Auth`
 * base, an AccessControl role granted in the constructor) after owner() was renounced was
 * never tried. An eth_call of such a function that succeeds from the creator and reverts for a
 * stranger is the same proof as the static probe's (docs/risk-model.md, "Ownership and
 * renounce"), reported as a behaviour finding so that privilege.ts weighs it like one.
 */

/**
 * At most this many functions are tried per token (four eth_calls each: two argument variants
 * from a stranger and from the creator; the simulate stage folds them into one eth_call per sender).
 */
export const MAX_CREATOR_PROBES = 12;

export async function probeCreatorAccess(
  rpc: RpcClient,
  input: { token: string; analysis: StaticAnalysis; callers: readonly PrivilegedCaller[] },
): Promise<BehaviourFinding[]> {
  const { analysis } = input;
  const ownership = analysis.ownership;
  const liveOwner = ownership.renounced ? null : (ownership.owner?.toLowerCase() ?? null);
  const known = new Set([liveOwner, ownership.hidden_owner?.toLowerCase() ?? null, STRANGER]);
  const creators = [
    ...new Set(
      input.callers
        .filter((c) => c.role === 'creator')
        .map((c) => c.address.toLowerCase())
        .filter((a) => !known.has(a)),
    ),
  ];
  const byName = new Map(analysis.functions.map((f) => [f.selector, f]));
  const gated = analysis.admin_functions
    .filter(
      (f) =>
        (f.access_control === 'owner-only' || f.access_control === 'role') &&
        PROOF_FAMILIES.has(f.family) &&
        byName.has(f.selector),
    )
    .slice(0, MAX_CREATOR_PROBES);
  if (creators.length === 0 || gated.length === 0) return [];
  const requests = creators.flatMap((creator) =>
    gated.flatMap((f) => [
      ...probeRequests(input.token, STRANGER, byName.get(f.selector)!),
      ...probeRequests(input.token, creator, byName.get(f.selector)!),
    ]),
  );
  const outcomes = await probeCalls(rpc, requests, 'latest');
  const findings: BehaviourFinding[] = [];
  creators.forEach((creator, ci) => {
    gated.forEach((f, gi) => {
      const at = (ci * gated.length + gi) * 4;
      const [s0, s1, c0, c1] = outcomes.slice(at, at + 4);
      const strangerReverts = [s0, s1].every((o) => o && !o.ok && o.error === null);
      if (!strangerReverts || !(c0?.ok || c1?.ok)) return;
      findings.push({
        selector: f.selector,
        arguments: byName.get(f.selector)!.arguments,
        family: f.family,
        caller: creator,
        caller_role: 'creator',
        detail: `eth_call of ${functionLabel(f.selector, f.signature)} succeeds from the creator ${creator} (${f.access_control})`,
      });
    });
  });
  return findings;
}
