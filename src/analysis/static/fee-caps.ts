import type { RpcClient, RpcRequest } from '../../evm/rpc.ts';
import { isDeadAddress } from '../access/index.ts';
import type { CapabilityReport, FeeSlot, Judged } from '../capabilities/index.ts';
import { catalogEntry } from '../catalog/index.ts';
import {
  capSearchRequest,
  decodeCapSearch,
  FEE_LADDER,
  numberOffsets,
  WHOLE_SALE_PCT,
} from '../simulation/index.ts';
import type { AdminFunction, Proof } from '../types.ts';
import { callersOf, proofCalldata, storedCallers } from './proofs.ts';

/**
 * A fee that can take the whole amount is a limit (docs/risk-model.md, "Fee setters"), pool or
 * no pool. The capability walk finds the fee's share (`amount * sload(slot) / divisor` written
 * by transfer) and the privileged functions that store their argument in that slot
 * (capabilities/fee-slots.ts); here the highest value such a setter accepts from its caller is
 * searched by execution (PowerProver.searchCap, placed at the caller: a ladder of values, then a
 * binary search, each try undone). A cap that reaches WHOLE_SALE_PCT of the divisor is a
 * `trading-switch` limit, proven with the numbers; a capped setter (`require(bps <= 500)`) is
 * none. Either way the search is the proof of the setter's `fee` power, with its cap. The
 * simulate stage's behaviour probes do the same with a pool (simulation/behaviour.ts `feeCap`),
 * reading the sell tax at the cap.
 */

/** Setters searched per token (one eth_call each, batched). */
const MAX_SEARCHED = 4;

/**
 * Is this admin function an entry the fee cap search added (static.ts `feeCapFunctions`): the
 * limit a whole-amount cap makes, a siphon, or an uncatalogued setter's `fee` entry? Such a setter
 * is still probed by the simulate stage's behaviour probes, which read the sell tax at its cap.
 */
export const isFeeCapEntry = (f: AdminFunction): boolean =>
  f.proof?.after?.fee_cap !== undefined &&
  (f.family === 'trading-switch' ||
    f.family === 'fee-siphon' ||
    catalogEntry(f.selector) === undefined);

/** Where a fee goes, as the siphon's proof says it. */
function walletText(w: FeeSlot['wallets'][number]): string {
  const at = `the address stored in slot 0x${w.slot.toString(16)}`;
  const setters = w.setters.map((x) => `0x${x}`).join(', ');
  if (w.privileged && setters) return `${at}, the privileged caller's own, set by ${setters}`;
  return w.privileged ? `${at}, the privileged caller's own` : `${at}, set by ${setters}`;
}

/** A fee setter's searched cap: the proof of its fee, and whether it can take the whole amount. */
export interface FeeCap {
  selector: string;
  proof: Proof;
  /** The cap reaches WHOLE_SALE_PCT of the divisor: the setter is also a limit. */
  whole: boolean;
  /** Whole, and credited to a wallet a privileged function sets: the proof of a siphon. */
  siphon: Proof | null;
}

export interface FeeCapInput {
  address: string;
  blockTag: string;
  owner: string | null;
  judged: readonly Judged[];
  report: CapabilityReport | null;
}

interface Search {
  fee: FeeSlot;
  selector: string;
  signature: string;
  caller: { address: string; role: string };
  request: RpcRequest;
}

/** The fee setters' accepted maxima, each as the proof of its fee (with the numbers). */
export async function feeCaps(rpc: RpcClient, input: FeeCapInput): Promise<FeeCap[]> {
  const fees = input.report?.fees ?? [];
  if (fees.length === 0) return [];
  const owner = input.owner && !isDeadAddress(input.owner) ? input.owner.toLowerCase() : null;
  const setters = input.judged.filter((j) => fees.some((f) => f.setters.includes(j.fn.selector)));
  const stored = await storedCallers(rpc, input, setters);
  const searches: Search[] = [];
  for (const fee of fees)
    for (const selector of fee.setters) {
      const judged = input.judged.find((j) => j.fn.selector === selector);
      const args = judged?.fn.arguments ?? '';
      const types = args.split(',').filter((t) => t.length > 0);
      // Only static arguments: a number's word sits at 4 + 32 * i.
      if (!judged || types.some((t) => !/^(address|bool|u?int\d{0,3}|bytes32)$/.test(t))) continue;
      const template = proofCalldata(selector, args);
      if (template === null) continue;
      const offsets = numberOffsets(types);
      const signature = judged.entry?.signature ?? `0x${selector}(${args})`;
      for (const caller of callersOf(judged, owner, stored)) {
        if (searches.length >= MAX_SEARCHED) break;
        const request = capSearchRequest(
          caller.address,
          input.address,
          template,
          offsets,
          input.blockTag,
        );
        searches.push({ fee, selector, signature, caller, request });
      }
    }
  if (searches.length === 0) return [];
  const answers = await rpc.batch<string>(searches.map((s) => s.request));
  const out = new Map<string, FeeCap>();
  searches.forEach((s, i) => {
    const a = answers[i];
    if (!a?.ok || out.has(s.selector)) return;
    const cap = decodeCapSearch(a.result);
    // Refused every value of the ladder: nothing shown for this caller.
    if (cap === null) return;
    const whole = cap * 100n >= s.fee.divisor * BigInt(WHOLE_SALE_PCT);
    const uncapped = cap === FEE_LADDER[FEE_LADDER.length - 1];
    const capText = uncapped ? 'any value (no cap)' : String(cap);
    const slot = `0x${s.fee.slot.toString(16)}${s.fee.shift > 0 ? ` (the field at bit ${s.fee.shift})` : ''}`;
    // The share at the cap, in percent of the amount (two decimals), for the capped setter's text.
    const share = Number((cap * 10_000n) / s.fee.divisor) / 100;
    const fee = {
      before: { fee_divisor: String(s.fee.divisor) },
      after: { fee_cap: uncapped ? 'none' : String(cap) },
    };
    const wallet = whole
      ? s.fee.wallets.find((w) => w.privileged || w.setters.length > 0)
      : undefined;
    const routed = wallet && walletText(wallet);
    out.set(s.selector, {
      selector: s.selector,
      whole,
      siphon: routed
        ? {
            status: 'proven',
            detail:
              `${s.signature} called by ${s.caller.role} ${s.caller.address} accepts ${capText} (searched) ` +
              `for the fee in slot ${slot}, which transfer credits to ${routed}: the owner can route ` +
              'the whole of every transfer to a wallet of its choosing, a siphon',
            ...fee,
          }
        : null,
      proof: {
        status: 'proven',
        detail:
          `${s.signature} called by ${s.caller.role} ${s.caller.address} accepts ${capText} (searched), ` +
          `stored in slot ${slot}, which transfer divides by ${s.fee.divisor} as the share of the amount it takes: ` +
          (whole
            ? 'the fee can take the whole amount, a limit'
            : `the fee can take up to ${share} % of the amount`),
        ...fee,
      },
    });
  });
  return [...out.values()];
}
