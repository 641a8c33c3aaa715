/**
 * Symbolic values of the bytecode walk: a 256-bit word is either a concrete bigint or a Node, an
 * expression over what the code cannot know (the caller, storage, other contracts, the block).
 * Each node carries a taint (what it depends on) and its depth, so deep expressions can be cut.
 */

export const T_CALLER = 1;
export const T_STORAGE = 2;
export const T_EXTERNAL = 4;

/** Expressions deeper than this keep only their taint: enough to know what they depend on. */
export const MAX_EXPRESSION_DEPTH = 24;

export interface Node {
  readonly op: string;
  readonly args: readonly Sym[];
  readonly taint: number;
  readonly depth: number;
  /** For 'retdata': the external call was given the caller among its arguments. */
  readonly callerArg?: boolean;
  /**
   * For 'retdata': the address the call went to (`sload(slot)` for a contract the token keeps in
   * storage, the owner can swap): what decides a transfer that depends on the answer.
   */
  readonly target?: Sym;
}
export type Sym = bigint | Node;

/** An answer computed from the caller (callerArg) depends on the caller, like the caller itself. */
export const leaf = (op: string, taint = 0, callerArg?: boolean, target?: Sym): Node => ({
  op,
  args: [],
  taint: callerArg ? taint | T_CALLER : taint,
  depth: 1,
  callerArg,
  ...(target !== undefined ? { target } : {}),
});
export const CALLER: Node = leaf('caller', T_CALLER);
export const ORIGIN: Node = leaf('origin', T_CALLER);

export function node(op: string, args: readonly Sym[], extraTaint = 0): Node {
  let taint = extraTaint;
  let depth = 0;
  for (const a of args) {
    if (typeof a !== 'bigint') {
      taint |= a.taint;
      if (a.depth > depth) depth = a.depth;
    }
  }
  if (depth + 1 > MAX_EXPRESSION_DEPTH) return { op: 'opaque', args: [], taint, depth: 1 };
  return { op, args, taint, depth: depth + 1 };
}

export const isNode = (x: Sym | undefined): x is Node => x !== undefined && typeof x !== 'bigint';
export const isCallerLeaf = (x: Sym): x is Node =>
  isNode(x) && (x.op === 'caller' || x.op === 'origin');
