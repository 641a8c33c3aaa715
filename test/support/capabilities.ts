import { id } from 'ethers';
import { extractFunctions, normalizeCode } from '../../src/analysis/bytecode/index.ts';
import type { CapabilityReport } from '../../src/analysis/capabilities/index.ts';
import { analyzeCapabilities } from '../../src/analysis/capabilities/index.ts';
import { assessRisk, deriveHints } from '../../src/analysis/risk/index.ts';
import { analyzeBytecode } from '../../src/analysis/static/index.ts';
import type { StaticAnalysis } from '../../src/analysis/types.ts';
import { prepareCode } from '../../src/analysis/walk/index.ts';
import type { Compiled } from './solc.ts';

/**
 * Reading compiled test contracts the way the selectors stage does, for the capability idiom
 * tests (capabilities.idioms.test.ts on solc 0.8, capabilities.legacy.test.ts on 0.4–0.6).
 */

export const LIVE_OWNER = '0x00000000000000000000000000000000000000aa';
export const ZERO_OWNER = '0x0000000000000000000000000000000000000000';

/** The capability walk of runtime code, with selectors as labels. */
export function analyseCode(code: string): CapabilityReport {
  const { functions } = extractFunctions(code);
  return analyzeCapabilities(
    prepareCode(normalizeCode(code)!),
    functions,
    (f) => `0x${f.selector}`,
  );
}

/** `capability:family` of every finding, sorted. */
export const summary = (r: CapabilityReport) =>
  r.findings.map((f) => `${f.capability}:${f.family}`).sort();

/** The first evidence line of every finding. */
export const detail = (r: CapabilityReport) =>
  r.findings.map((f) => f.evidence[0]!.detail).join(' | ');

export function capabilityHelpers(contracts: Record<string, Compiled>) {
  const code = (name: string) => {
    const c = contracts[name];
    if (!c) throw new Error(`no contract ${name} in the compiled source`);
    return c.deployedBytecode;
  };
  const analyse = (name: string) => analyseCode(code(name));
  return {
    analyse,
    /** `capability:family` of the findings on one function, named by its signature. */
    findingsOn: (name: string, signature: string) =>
      analyse(name)
        .findings.filter((f) => f.selector === id(signature).slice(2, 10))
        .map((f) => `${f.capability}:${f.family}`),
    /** `signature family access` of every admin function the static analysis reports. */
    admin: (name: string) =>
      analyzeBytecode(code(name)).admin_functions.map(
        (f) => `${f.signature} ${f.family} ${f.access_control}`,
      ),
    /**
     * The assessment and flags of a contract as the API derives them from the code alone, with
     * `owner()` answering `owner`: a live address, or zero (a real renounce, no hidden owner).
     */
    flagsOf: (name: string, owner: string = LIVE_OWNER) => {
      const { error: _, ...analysis } = analyzeBytecode(code(name));
      const renounced = owner === ZERO_OWNER;
      const staticAnalysis: StaticAnalysis = {
        ...analysis,
        ownership: {
          owner,
          owner_source: 'owner()',
          renounced,
          hidden_owner: null,
          fake_renounce: false,
          evidence: [],
        },
      };
      const assessment = assessRisk({
        trusted: false,
        static: staticAnalysis,
        behaviour: [],
        simulation: null,
        similarHoneypots: 0,
      });
      return { hints: deriveHints({ assessment, static: staticAnalysis }), assessment };
    },
  };
}
