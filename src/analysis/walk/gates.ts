import { unwrap } from './caller-patterns.ts';
import { contains } from './storage-shapes.ts';
import { isNode, type Node, type Sym } from './symbolic.ts';

/**
 * External gates: answers of contracts the token keeps in storage. A transfer that branches on
 * `guard.check(from, to, amount)` or writes a balance from `controller.f(amount)` lets that
 * contract decide it; whoever can write the slot holding its address can swap the decider.
 */

export interface GateRead {
  /** The constant slot the called contract's address is read from. */
  slot: bigint;
  /** Bits the address is shifted by within the slot (packed storage). */
  shift: number;
}

/** Expressions are searched this far for answers of external calls. */
const GATE_SEARCH_BUDGET = 80;

/**
 * ABI decoding checks an answer against its own cleaned-up value (`x == iszero(iszero(x))` for a
 * bool, `x == and(x, 2^160 - 1)` for an address): a revert there is a malformed answer, not the
 * contract's decision, so the answers such a check compares with themselves are left out.
 */
function validated(expr: Sym): Set<Node> {
  const out = new Set<Node>();
  contains(
    expr,
    (n) => {
      if (n.op !== 'eq' || n.args.length !== 2) return false;
      const left = answers(n.args[0]!);
      for (const a of answers(n.args[1]!)) if (left.has(a)) out.add(a);
      return false;
    },
    GATE_SEARCH_BUDGET,
  );
  return out;
}

function answers(expr: Sym): Set<Node> {
  const out = new Set<Node>();
  contains(
    expr,
    (n) => {
      if (n.op === 'retdata') out.add(n);
      return false;
    },
    GATE_SEARCH_BUDGET,
  );
  return out;
}

/**
 * The stored contracts whose answers `expr` depends on (a decoding check of an answer is no such
 * dependence, see validated).
 */
export function gateReads(expr: Sym): GateRead[] {
  const out: GateRead[] = [];
  const decoding = validated(expr);
  contains(
    expr,
    (n) => {
      if (n.op !== 'retdata' || n.target === undefined || decoding.has(n)) return false;
      const { core, shift } = unwrap(n.target);
      if (isNode(core) && core.op === 'sload' && typeof core.args[0] === 'bigint') {
        const slot = core.args[0];
        if (!out.some((g) => g.slot === slot && g.shift === shift)) out.push({ slot, shift });
      }
      return false;
    },
    GATE_SEARCH_BUDGET,
  );
  return out;
}
