import type { BytecodeVerdict } from '../access/index.ts';
import type { DispatchedFunction } from '../bytecode/index.ts';
import type { AdminFamily, CatalogEntry, Evidence, FunctionRisk } from '../types.ts';
import type { Capability, CapabilityReport } from './types.ts';

/**
 * Merges what the code does (capabilities.ts) with what functions are called (the catalog):
 *
 * - a function with a proven capability is an admin function of that family, named or not;
 * - a catalogued function named for a capability (mintToken, freezeAccount, burnFrom…) whose
 *   complete walk shows no such effect is demoted to 'other': the name alone is no evidence
 *   (a freeze flag that no transfer reads, a burnFrom that spends an allowance).
 */

/** One function judged from the code (static.ts), with its catalog entry when it has one. */
export interface Judged {
  fn: DispatchedFunction;
  entry: CatalogEntry | null;
  verdict: BytecodeVerdict;
}

/** Which capability each catalog family claims. */
export const CLAIMS: Partial<Record<AdminFamily, Capability>> = {
  mint: 'mint',
  'burn-from': 'leak',
  'balance-change': 'leak',
  blacklist: 'limit',
  pause: 'limit',
  'trading-switch': 'limit',
};
const RISK: Partial<Record<AdminFamily, FunctionRisk>> = {
  mint: 'critical',
  'burn-from': 'critical',
  'balance-change': 'critical',
  blacklist: 'high',
  pause: 'high',
  'trading-switch': 'high',
};
const DESCRIPTION: Record<Capability, string> = {
  mint: 'Creates tokens: a privileged path adds to a balance without taking from another.',
  leak: "Takes or rewrites another holder's balance without that holder's allowance.",
  limit: 'Writes a flag, an account entry or a time that transfers check before they fail.',
};

function syntheticEntry(
  fn: DispatchedFunction,
  family: AdminFamily,
  capability: Capability,
): CatalogEntry {
  return {
    name: `0x${fn.selector}`,
    signature: `0x${fn.selector}(${fn.arguments})`,
    selector: fn.selector,
    family,
    risk_level: RISK[family] ?? 'high',
    description: DESCRIPTION[capability],
  };
}

/** Can the report decide whether this capability is absent from the function? */
function decides(report: CapabilityReport, capability: Capability, selector: string): boolean {
  if (!report.conclusive.includes(selector)) return false;
  // A complete walk whose only write to what transfer checks can just let holders through
  // decides even when transfer's own walk did not complete: the write it saw is a release.
  if (capability === 'limit') return report.limitsKnown || oneWayDetail(report, selector) !== null;
  return report.layout.balances !== null;
}

export function applyCapabilities(
  judged: readonly Judged[],
  report: CapabilityReport | null,
  functions: readonly DispatchedFunction[],
  verdictOf: (fn: DispatchedFunction) => BytecodeVerdict,
): Judged[] {
  if (!report) return [...judged];
  const out: Judged[] = [];
  const bySelector = new Map(functions.map((f) => [f.selector, f]));
  const claimed = new Set<string>();
  for (const j of judged) {
    const claim = j.entry ? CLAIMS[j.entry.family] : undefined;
    if (!j.entry || !claim) {
      out.push(withOneWay(j, report));
      continue;
    }
    const proof = report.findings.find(
      (f) => f.selector === j.fn.selector && f.capability === claim,
    );
    if (proof) {
      claimed.add(`${proof.selector}|${proof.capability}`);
      out.push({
        ...j,
        entry: { ...j.entry, family: proof.family },
        verdict: withEvidence(j.verdict, proof.evidence),
      });
    } else if (decides(report, claim, j.fn.selector)) {
      const opener = oneWayDetail(report, j.fn.selector);
      const why: Evidence = {
        kind: 'bytecode',
        selector: j.fn.selector,
        detail: opener
          ? `${j.entry.signature} is named like a ${j.entry.family} function, but ${opener}: not counted`
          : `${j.entry.signature} is named like a ${j.entry.family} function, but no privileged path of it ${absence(claim)}: not counted`,
      };
      out.push({
        ...j,
        entry: { ...j.entry, family: 'other', risk_level: 'low' },
        verdict: withEvidence(j.verdict, [why]),
      });
    } else out.push(withOneWay(j, report));
  }
  for (const f of report.findings) {
    if (claimed.has(`${f.selector}|${f.capability}`)) continue;
    const fn = bySelector.get(f.selector);
    if (!fn) continue;
    const existing = out.find((j) => j.fn.selector === f.selector);
    // A catalogued function of the finding's own family (setMaxTxAmount proven able to stop a
    // transfer): the proof joins its evidence, no second entry.
    if (existing?.entry?.family === f.family) {
      out[out.indexOf(existing)] = {
        ...existing,
        verdict: withEvidence(existing.verdict, f.evidence),
      };
      claimed.add(`${f.selector}|${f.capability}`);
      continue;
    }
    const verdict = existing?.verdict ?? verdictOf(fn);
    const entry = syntheticEntry(fn, f.family, f.capability);
    // An uncatalogued privileged function is replaced by its capability; a catalogued one keeps
    // its own entry (another family) and gains a second.
    const index = existing && !existing.entry ? out.indexOf(existing) : -1;
    const judgedFinding = { fn, entry, verdict: withEvidence(verdict, f.evidence) };
    if (index >= 0) out[index] = judgedFinding;
    else out.push(judgedFinding);
    claimed.add(`${f.selector}|${f.capability}`);
  }
  return out;
}

const oneWayDetail = (report: CapabilityReport, selector: string) =>
  report.oneWay.find((o) => o.selector === selector)?.detail ?? null;

/** A judged function that is a one-way opener says so in its evidence. */
function withOneWay(j: Judged, report: CapabilityReport): Judged {
  const detail = oneWayDetail(report, j.fn.selector);
  if (detail === null) return j;
  const evidence: Evidence = { kind: 'bytecode', selector: j.fn.selector, detail };
  return { ...j, verdict: withEvidence(j.verdict, [evidence]) };
}

function absence(capability: Capability): string {
  if (capability === 'mint') return 'adds to a balance';
  if (capability === 'leak') return "takes from or rewrites another holder's balance";
  return 'writes anything transfer() or transferFrom() checks before failing';
}

const withEvidence = (v: BytecodeVerdict, extra: readonly Evidence[]): BytecodeVerdict => ({
  ...v,
  evidence: [...extra, ...v.evidence],
});
