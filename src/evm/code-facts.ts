import { JUMPDEST, pushDataSize } from './opcodes.ts';

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
