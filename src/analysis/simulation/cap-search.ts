import { Interface, toBeHex } from 'ethers';
import { loadArtifact } from '../../../contracts/artifacts.ts';
import type { RpcRequest } from '../../evm/rpc.ts';

/**
 * A fee setter's cap search (docs/risk-model.md, "Fee setters"): the PowerProver placed at the
 * setter's caller sets every number argument to each value of FEE_LADDER, then binary-searches
 * between the highest accepted and the lowest refused value above it, each try in an undone
 * sub-call (`PowerProver.searchCap`), all in one eth_call. The behaviour probes with a pool
 * (behaviour.ts `feeCap`) and the static proof without one (static/fee-caps.ts) search alike.
 */

/** The values tried first: percent, basis points, wei amounts, the maximum. */
export const FEE_LADDER = [
  1n,
  10n,
  25n,
  50n,
  99n,
  100n,
  101n,
  500n,
  1000n,
  2500n,
  5000n,
  9999n,
  10_000n,
  10_001n,
  10n ** 6n,
  10n ** 18n,
  (1n << 256n) - 1n,
];
/** At or above this share of a sale (percent) a fee takes the whole sale: a limit, not a fee. */
export const WHOLE_SALE_PCT = 99;

const SEARCH_GAS = 30_000_000;
const NUMBER = /^u?int\d{0,3}$/;
const prover = loadArtifact('PowerProver');
const proverInterface = new Interface(prover.abi);

/** Where the number arguments' words sit in the call data (static arguments: 4 + 32 × i). */
export const numberOffsets = (types: readonly string[]): number[] =>
  types.flatMap((t, i) => (NUMBER.test(t) ? [4 + 32 * i] : []));

/** The eth_call that searches the cap of `template` (the setter's call) as `caller`. */
export function capSearchRequest(
  caller: string,
  token: string,
  template: string,
  offsets: readonly number[],
  blockTag: string,
): RpcRequest {
  const data = proverInterface.encodeFunctionData('searchCap', [
    token,
    template,
    offsets,
    FEE_LADDER,
  ]);
  return {
    method: 'eth_call',
    params: [
      { from: caller, to: caller, data, gas: toBeHex(SEARCH_GAS) },
      blockTag,
      { [caller]: { code: prover.deployedBytecode } },
    ],
  };
}

/** The highest value accepted, or null when the setter refused every value of the ladder. */
export function decodeCapSearch(result: string): bigint | null {
  const [found, value] = proverInterface.decodeFunctionResult('searchCap', result);
  return found ? BigInt(value) : null;
}
