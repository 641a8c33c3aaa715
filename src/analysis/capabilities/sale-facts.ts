import type { PathTrace } from '../walk/index.ts';
import {
  comparedReads,
  evaluate,
  flagReads,
  isCallerLeaf,
  isNode,
  type Node,
  type Sym,
  sameSym,
  slotShape,
  unwrap,
} from '../walk/index.ts';
import type { TokenLayout } from './layout.ts';

/**
 * What a failing path of transfer() or transferFrom() proved about the sale it refused
 * (capabilities/blockers.ts): whether the recipient was the pair, whether the sender was, whether
 * the failure spared sales, and whether one list entry alone decided it.
 */

/** Steps from a blocking check to the failure it causes (building an Error(string) included). */
export const MAX_FAILURE_DISTANCE = 100;

/**
 * The facts of one failing path, each computed only when a branch near the failure needs it
 * (per-token speed). `sender` is the caller for transfer(), argument 1 for transferFrom().
 */
export function saleFacts(
  t: PathTrace,
  sender: bigint | 'caller',
  recipient: bigint,
  layout: TokenLayout,
): Sale {
  // A sale: the path proved the recipient is an address the token stores (its pair).
  const sell = once(() => t.conditions.some((c) => equalsStored(c.cond, c.taken, recipient)));
  return {
    sell,
    binds: once(() => sell() || !sparesSales(t, sender, recipient)),
    gate: once(() => decidedByEntryAlone(t, layout)),
    // A failure only when the sender is a stored address (a buy from the pair, the owner's own
    // wallet) stops no holder: its flags and entries are no limit.
    buy: once(() => proofsAbout(t, sender).some((p) => p.equal)),
  };
}

/** What a failing path proved about the sale, each computed on first use. */
export interface Sale {
  sell: () => boolean;
  binds: () => boolean;
  gate: () => boolean;
  buy: () => boolean;
}

function once<T>(compute: () => T): () => T {
  let done = false;
  let value: T;
  return () => {
    if (!done) {
      value = compute();
      done = true;
    }
    return value;
  };
}

/**
 * What the branch outcome proves about `address` and a stored address: equal (`if (to ==
 * pair)`) or not (`if (to != pair)`), with the load of the stored one; null when it says nothing.
 */
function storedComparison(
  cond: Sym,
  taken: boolean,
  address: bigint | 'caller',
): { equal: boolean; stored: Node } | null {
  let cur = cond;
  let want = taken;
  while (isNode(cur) && cur.op === 'iszero') {
    cur = cur.args[0]!;
    want = !want;
  }
  if (!isNode(cur) || cur.args.length !== 2) return null;
  const isEq = cur.op === 'eq';
  if (!isEq && cur.op !== 'sub' && cur.op !== 'xor') return null;
  const [a, b] = cur.args.map((x) => unwrap(x).core) as [Sym, Sym];
  const stored = (x: Sym): x is Node => isNode(x) && x.op === 'sload';
  const is = (x: Sym) => (address === 'caller' ? isCallerLeaf(x) : x === address);
  const other = is(a) && stored(b) ? b : is(b) && stored(a) ? a : null;
  if (other === null) return null;
  return { equal: isEq === want, stored: other };
}

/** Does the branch outcome prove `address == sload(slot)` (`if (to == pair)`)? */
function equalsStored(cond: Sym, taken: boolean, address: bigint): boolean {
  return storedComparison(cond, taken, address)?.equal === true;
}

/**
 * Does a failing path spare sales? It did when it proved the sender is a stored address (a buy
 * from the pair), or the recipient is not one the sender was not also compared with: `if (to !=
 * pair)` exempts sales, while `from != owner && to != owner` exempts one account at both ends.
 */
function sparesSales(t: PathTrace, sender: bigint | 'caller', recipient: bigint): boolean {
  const fromProofs = proofsAbout(t, sender);
  if (fromProofs.some((p) => p.equal)) return true;
  return proofsAbout(t, recipient).some(
    (p) => !p.equal && !fromProofs.some((q) => !q.equal && sameSym(q.stored, p.stored)),
  );
}

/** What the path's branches prove about `address` and stored addresses. */
function proofsAbout(t: PathTrace, address: bigint | 'caller') {
  return t.conditions.flatMap((c) => {
    const p = storedComparison(c.cond, c.taken, address);
    return p ? [p] : [];
  });
}

/** The largest word: a cap at it lets every amount through. */
const MAX_WORD = (1n << 256n) - 1n;

/**
 * Did the failing path's last branch decide the failure on its own? Not when an earlier branch
 * within reach of the failure tested a stored flag or time (`require(tradingOpen ||
 * whitelisted[from])`: the list exempts from a launch gate), or went the over-the-cap way of a
 * stored cap (`require(amount <= maxTx || excluded[from])`: an exemption from a cap).
 * Comparisons of addresses (`to == pair`, `from == owner`) decide who, and do not count.
 */
function decidedByEntryAlone(t: PathTrace, layout: TokenLayout): boolean {
  const lastStep = t.conditions.at(-1)?.step ?? t.steps;
  for (let i = t.conditions.length - 2; i >= 0; i--) {
    const c = t.conditions[i]!;
    if (lastStep - c.step > MAX_FAILURE_DISTANCE) break;
    const flag = flagReads(c.cond).some((r) => {
      const shape = slotShape(r.load.args[0]!);
      return shape?.kind === 'slot' && shape.slot !== layout.totalSupply;
    });
    if (flag) return false;
    const overCap = comparedReads(c.cond).some((load) => {
      if (slotShape(load.args[0]!)?.kind !== 'slot') return false;
      const outcome = evaluate(c.cond, load, MAX_WORD);
      return outcome !== null && (outcome !== 0n) !== c.taken;
    });
    if (overCap) return false;
  }
  return true;
}
