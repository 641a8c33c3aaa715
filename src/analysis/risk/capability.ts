import {
  allAdminFunctions,
  grantsPower,
  hiddenOwnerProof,
  isLive,
  isRealRenounce,
  POWER_OF,
} from '../access/index.ts';
import {
  type AdminFamily,
  type AdminFunction,
  type Proof,
  type RiskFactor,
  riskLevelOf,
} from '../types.ts';
import {
  FAMILY_POINTS,
  functionEvidence,
  LEVEL_FLOORS,
  type RiskInput,
  severityOf,
  TEMPLATE_POINTS,
  WEIGHTS,
} from './weights.ts';

/**
 * Risk factors from what the owner can do: admin functions by family, hidden owner, renounce,
 * proxy, template, honeypot clones; and the level floor that live powers over holders set.
 */

export function capabilityFactors(input: RiskInput): RiskFactor[] {
  return [...adminFactors(input), ...codeFactors(input)];
}

/** Live admin functions by family, allowance burns, the hidden owner and a real renounce. */
function adminFactors(input: RiskInput): RiskFactor[] {
  const factors: RiskFactor[] = [];
  const ownership = input.static?.ownership ?? null;
  const functions = allAdminFunctions(input);
  const proof = hiddenOwnerProof(input);
  const byFamily = new Map<AdminFamily, { fns: AdminFunction[]; points: number }>();
  const allowanceBurns: AdminFunction[] = [];
  for (const fn of functions) {
    if (!isLive(fn, ownership, proof)) continue;
    if (!grantsPower(fn)) {
      allowanceBurns.push(fn);
      continue;
    }
    const full = FAMILY_POINTS[fn.family];
    const share =
      (fn.access_control === 'unknown' ? WEIGHTS.unknownAccessShare : 1) *
      (fn.proof?.status === 'unconfirmed' ? WEIGHTS.unconfirmedShare : 1);
    const points = Math.round(full * share);
    const entry = byFamily.get(fn.family) ?? { fns: [], points: 0 };
    entry.fns.push(fn);
    entry.points = Math.max(entry.points, points);
    byFamily.set(fn.family, entry);
  }
  for (const [family, { fns, points }] of byFamily) {
    // Ownership transfer and renounce are no power over holders: nothing to report.
    if (FAMILY_POINTS[family] === 0) continue;
    const who = [...new Set(fns.map((f) => f.access_control))].join('/');
    factors.push({
      code: `admin:${family}`,
      points,
      severity: severityOf(points),
      message: `${family} function${fns.length > 1 ? 's' : ''} ${fns.map((f) => f.signature).join(', ')} callable (${who})`,
      evidence: fns.flatMap(functionEvidence),
      proof: familyProof(family, fns),
    });
  }
  if (allowanceBurns.length > 0) {
    factors.push({
      code: 'allowance-burn',
      points: 0,
      severity: 'info',
      message:
        `${allowanceBurns.map((f) => f.signature).join(', ')} spends the holder's allowance ` +
        '(ERC20Burnable): no power over other holders',
      evidence: allowanceBurns.flatMap(functionEvidence),
    });
  }
  if (proof) {
    const fake = ownership?.renounced === true;
    factors.push({
      code: 'hidden-owner',
      points: WEIGHTS.hiddenOwner,
      severity: 'high',
      message: fake
        ? `Fake renounce: ${proof.address} keeps admin powers`
        : `${proof.address}, which owner() does not name, can call admin functions`,
      evidence: proof.evidence,
    });
  }
  const dead = functions.filter((fn) => !isLive(fn, ownership, proof));
  if (isRealRenounce(ownership, proof)) {
    factors.push({
      code: 'ownership-renounced',
      points: WEIGHTS.renounced,
      severity: 'info',
      message: `Ownership renounced${dead.length > 0 ? `: ${dead.map((f) => f.signature).join(', ')} can no longer be called` : ''}`,
      evidence:
        ownership!.evidence.length > 0
          ? ownership!.evidence
          : [{ kind: 'storage', detail: `owner is ${ownership!.owner ?? 'zero'}` }],
    });
  }
  return factors;
}

/**
 * The proof of a family: the first of its functions an execution proved, else the first
 * unconfirmed one; a family no execution was tried for (fee, upgrade, withdraw…) is unconfirmed.
 */
function familyProof(family: AdminFamily, fns: readonly AdminFunction[]): Proof {
  return (
    fns.find((f) => f.proof?.status === 'proven')?.proof ??
    fns.find((f) => f.proof?.status === 'observed')?.proof ??
    fns.find((f) => f.proof)?.proof ?? {
      status: 'unconfirmed',
      detail: `not executed: the ${family} power is read from the code and the access probes only`,
    }
  );
}

/** What the code itself says: a proxy, a known template, the skeleton of earlier honeypots. */
function codeFactors(input: RiskInput): RiskFactor[] {
  const factors: RiskFactor[] = [];
  const proxy = input.static?.proxy;
  if (proxy?.is_proxy) {
    factors.push({
      code: 'proxy',
      points: WEIGHTS.proxy,
      severity: severityOf(WEIGHTS.proxy),
      message: `Proxy (${proxy.kind ?? 'unknown kind'}) delegating to ${proxy.implementation ?? 'an unknown implementation'}: the code can change`,
      evidence:
        proxy.evidence.length > 0
          ? proxy.evidence
          : [{ kind: 'bytecode', detail: `proxy kind ${proxy.kind}` }],
    });
  }
  const template = input.static?.template;
  if (template) {
    const points = TEMPLATE_POINTS[template] ?? 0;
    factors.push({
      code: 'template',
      points,
      severity: severityOf(points),
      message: `Built from the ${template} template`,
      evidence: [{ kind: 'bytecode', detail: `template ${template}` }],
    });
  }
  if (input.similarHoneypots > 0) {
    const [many, manyPoints] = WEIGHTS.honeypotCloneMany;
    const points = input.similarHoneypots >= many ? manyPoints : WEIGHTS.honeypotClone;
    factors.push({
      code: 'honeypot-clone',
      points,
      severity: severityOf(points),
      message: `Same code skeleton as ${input.similarHoneypots} token${input.similarHoneypots > 1 ? 's' : ''} judged honeypot${input.similarHoneypots > 1 ? 's' : ''}`,
      evidence: [
        {
          kind: 'history',
          detail: `skeleton ${input.static?.skeleton_hash ?? '?'} shared with ${input.similarHoneypots} honeypot(s)`,
        },
      ],
    });
  }
  return factors;
}

/**
 * The floor under the level: live privileged powers over holders (owner-only or role, not dead
 * by a real renounce) counted once per kind. Returned as a factor carrying the difference, so
 * that the score stays the sum of its factors and says why it was raised.
 */
export function levelFloorFactor(input: RiskInput, sum: number): RiskFactor | null {
  if (input.trusted) return null;
  const ownership = input.static?.ownership ?? null;
  const proof = hiddenOwnerProof(input);
  const powers = new Map<string, AdminFunction[]>();
  for (const fn of allAdminFunctions(input)) {
    const power = POWER_OF[fn.family];
    const privileged = fn.access_control === 'owner-only' || fn.access_control === 'role';
    if (!power || !privileged || !isLive(fn, ownership, proof) || !grantsPower(fn)) continue;
    powers.set(power, [...(powers.get(power) ?? []), fn]);
  }
  if (powers.size === 0) return null;
  const floor = powers.size >= 2 ? LEVEL_FLOORS.twoPowers : LEVEL_FLOORS.onePower;
  if (sum >= floor) return null;
  const level = riskLevelOf(floor);
  return {
    code: 'admin-powers',
    points: floor - sum,
    severity: level === 'high' ? 'high' : 'medium',
    message:
      `Live admin power${powers.size > 1 ? 's' : ''} over holders ` +
      `(${[...powers.keys()].join(', ')}): at least ${level} risk`,
    evidence: [...powers.values()].flat().flatMap(functionEvidence),
  };
}
