import { JUMPDEST, pushDataSize } from '../../evm/opcodes.ts';
import type { StaticAnalysis } from '../types.ts';
import type { CodeFacts } from './holder-facts.ts';

/**
 * The code facts GoPlus users look for (docs/risk-model.md, "Code facts"), from the runtime code and
 * the static analysis:
 * - `selfdestruct`: a reachable SELFDESTRUCT instruction (src/evm/code-facts.ts); who can reach it is
 *   named when a catalogued admin function of that kind was found (its access control), else the
 *   evidence says only where it is.
 * - `external_call`: the owner can set a contract that transfers call. The capability analysis
 *   decides it where it reports `external_call` in the static analysis; until then this is a
 *   simple check, and its evidence says so: a privileged setter taking one address, in code that
 *   makes external calls.
 */

const DESTROY_NAME = /destroy|kill|selfdestruct|suicide/i;
const PRIVILEGED = new Set(['owner-only', 'role']);
/** Admin families whose address setters name what the token calls (router, pair, helper…). */
const SETTER_FAMILIES = new Set(['router-pair', 'other']);

/** What the capability analysis may report; read leniently (absent in analyses made before it). */
function reportedExternalCall(
  analysis: StaticAnalysis | null,
): { detail: string } | null | undefined {
  const reported = (analysis as { external_call?: unknown } | null)?.external_call;
  if (reported === undefined || reported === null) return reported === null ? null : undefined;
  if (reported === false) return null;
  const detail = (reported as { detail?: unknown }).detail;
  return { detail: typeof detail === 'string' ? detail : 'reported by the capability analysis' };
}

export function codeFactsOf(code: string, analysis: StaticAnalysis | null): CodeFacts {
  const sweep = sweepCode(code);
  let selfdestruct: CodeFacts['selfdestruct'] = null;
  if (sweep.selfdestructs.length > 0) {
    const where = `SELFDESTRUCT at pc ${sweep.selfdestructs.slice(0, 3).join(', ')}`;
    const fn = analysis?.admin_functions.find((f) => DESTROY_NAME.test(f.name));
    selfdestruct = {
      detail: fn
        ? `${where}, reached through ${fn.signature} (${fn.access_control})`
        : `${where}, reachable from the dispatcher (the caller check before it is not known)`,
    };
  }
  const reported = reportedExternalCall(analysis);
  if (reported !== undefined)
    return {
      selfdestruct,
      external_call: reported && { detail: reported.detail, source: 'static-analysis' },
    };
  let external_call: CodeFacts['external_call'] = null;
  if (sweep.calls.length > 0 && analysis) {
    const catalogued = analysis.admin_functions
      .filter(
        (f) =>
          SETTER_FAMILIES.has(f.family) &&
          PRIVILEGED.has(f.access_control) &&
          /^[^(]*\(address\)$/.test(f.signature),
      )
      .map((f) => `${f.signature} (${f.access_control})`);
    const uncatalogued = (analysis.privileged_functions ?? [])
      .filter((f) => f.arguments === 'address')
      .map((f) => `0x${f.selector}(address) (${f.access_control})`);
    const setters = [...catalogued, ...uncatalogued];
    if (setters.length > 0)
      external_call = {
        detail: `simple check: ${setters.slice(0, 3).join(', ')} sets an address and the code makes external calls (pc ${sweep.calls.slice(0, 3).join(', ')}); that transfers call it is not proven`,
        source: 'bytecode',
      };
  }
  return { selfdestruct, external_call };
}

/**
 * Facts read from runtime code by a linear sweep over its instructions (docs/risk-model.md,
 * "Code facts"). An instruction counts as reachable when straight-line execution or a JUMPDEST
 * leads to it: after STOP, RETURN, REVERT, INVALID, SELFDESTRUCT or JUMP nothing runs until the
 * next JUMPDEST, which keeps the data and metadata after the code (and an unreachable tail) out.
 */

const STOP = 0x00;
const JUMP = 0x56;
const RETURN = 0xf3;
const REVERT = 0xfd;
const INVALID = 0xfe;
export const SELFDESTRUCT = 0xff;
const CALLS = new Set([0xf1, 0xf2, 0xf4, 0xfa]);
const TERMINATORS = new Set([STOP, JUMP, RETURN, REVERT, INVALID, SELFDESTRUCT]);

export interface CodeSweep {
  /** Program counters of reachable SELFDESTRUCT instructions. */
  selfdestructs: number[];
  /** Program counters of reachable CALL, CALLCODE, DELEGATECALL and STATICCALL instructions. */
  calls: number[];
}

export function sweepCode(code: string): CodeSweep {
  const hex = code.startsWith('0x') ? code.slice(2) : code;
  const bytes = Buffer.from(hex, 'hex');
  const out: CodeSweep = { selfdestructs: [], calls: [] };
  let reachable = true;
  for (let pc = 0; pc < bytes.length; pc++) {
    const op = bytes[pc]!;
    if (op === JUMPDEST) reachable = true;
    if (reachable) {
      if (op === SELFDESTRUCT) out.selfdestructs.push(pc);
      else if (CALLS.has(op)) out.calls.push(pc);
    }
    if (TERMINATORS.has(op)) reachable = false;
    pc += pushDataSize(op);
  }
  return out;
}
