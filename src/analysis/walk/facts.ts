import { isNode, type Sym } from './symbolic.ts';

/**
 * What the walk knows without storage: the caller (CALLER) and tx.origin (ORIGIN) are never the
 * zero address (no key signs for it, and a contract never runs at it). A branch that needs either
 * to be zero cannot happen: OpenZeppelin 5's `_update(from, to, value)` mints on
 * `from == address(0)`, and transfer() passes `from = msg.sender`, so that mint is no path of
 * transfer(). Conditions decided by this fact are taken one way only (walk/flow.ts).
 */

const ADDRESS_MASK = (1n << 160n) - 1n;

/**
 * The caller, tx.origin or the contract's own address (ADDRESS: a contract never runs at zero),
 * possibly masked to its 160 bits (`and(caller, 2^160 - 1)`). `_transfer(address(this), to, v)`
 * through OpenZeppelin 5's `_update` is no mint either.
 */
function isCallerWord(x: Sym): boolean {
  if (!isNode(x)) return false;
  if (x.op === 'caller' || x.op === 'origin' || x.op === 'address') return true;
  if (x.op !== 'and') return false;
  const [a, b] = x.args;
  if (typeof a === 'bigint' && (a & ADDRESS_MASK) === ADDRESS_MASK) return isCallerWord(b!);
  if (typeof b === 'bigint' && (b & ADDRESS_MASK) === ADDRESS_MASK) return isCallerWord(a!);
  return false;
}

/**
 * Whether a branch condition is non-zero (true) or zero (false) on every possible path because
 * the caller is not the zero address; null when it depends on more than that.
 */
export function decidedByCaller(cond: Sym, depth = 0): boolean | null {
  if (typeof cond === 'bigint') return cond !== 0n;
  if (depth > 8) return null;
  if (isCallerWord(cond)) return true;
  const [a, b] = cond.args;
  switch (cond.op) {
    case 'iszero': {
      const inner = decidedByCaller(a!, depth + 1);
      return inner === null ? null : !inner;
    }
    case 'eq': {
      // x == 0 is iszero(x)
      if (a === 0n || b === 0n) {
        const inner = decidedByCaller(a === 0n ? b! : a!, depth + 1);
        return inner === null ? null : !inner;
      }
      return null;
    }
    // x > 0 and 0 < x are x != 0 (the node's first argument is the left operand)
    case 'gt':
      return b === 0n ? decidedByCaller(a!, depth + 1) : null;
    case 'lt':
      return a === 0n ? decidedByCaller(b!, depth + 1) : null;
    // x - 0, 0 - x and x ^ 0 are zero exactly when x is (unoptimized code compares so)
    case 'sub':
    case 'xor':
      return b === 0n
        ? decidedByCaller(a!, depth + 1)
        : a === 0n
          ? decidedByCaller(b!, depth + 1)
          : null;
    case 'or': {
      const l = decidedByCaller(a!, depth + 1);
      const r = decidedByCaller(b!, depth + 1);
      if (l === true || r === true) return true;
      return l === false && r === false ? false : null;
    }
    default:
      return null;
  }
}
