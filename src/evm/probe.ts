import { resolveProxy } from '../analysis/access/index.ts';
import { hasOpcode } from './bytecode.ts';
import {
  type Dispatch,
  dispatcherSelectors,
  interpretProbe,
  PROBE_REQUEST_COUNT,
  type ProbeOutcome,
  probeRequests,
  SURFACE,
  UNREAD_DISPATCH,
} from './erc20.ts';
import type { RpcClient, RpcOutcome } from './rpc.ts';

/**
 * Runs the ERC-20 probe against a node: the calls of erc20.ts plus the code, whose dispatcher
 * (or, behind a proxy, its implementation's) tells whether transfer(address,uint256) exists.
 * Reads at `blockTag` first; a node that has pruned that state (not an archive node) answers
 * errors rather than reverts, and then the latest state is used.
 */

const DELEGATECALL = 0xf4;
const TRANSFER = 'transfer(address,uint256)';

export async function probeContract(
  rpc: RpcClient,
  address: string,
  blockTag: string,
): Promise<ProbeOutcome> {
  const [outcome] = await probeContracts(rpc, [{ address, blockTag }]);
  return outcome!;
}

/**
 * The probe of several contracts in one JSON-RPC batch (behind a coalescing client, their
 * eth_calls at one block fold into one eth_call: src/evm/coalesce/). A contract whose every
 * read failed with an error rather than a revert is read again at the latest state, those
 * together in a second batch. Outcomes in the order given.
 */
export async function probeContracts(
  rpc: RpcClient,
  targets: readonly { address: string; blockTag: string }[],
): Promise<ProbeOutcome[]> {
  const read = async (tagged: readonly { address: string; blockTag: string }[]) => {
    const answers = await rpc.batch(tagged.flatMap((t) => withCode(t.address, t.blockTag)));
    return tagged.map((_, i) => answers.slice(i * PER_CONTRACT, (i + 1) * PER_CONTRACT));
  };
  const outcomes = await read(targets);
  const tags = targets.map((t) => t.blockTag);
  const stateMissing = targets
    .map((_, i) => i)
    .filter(
      (i) => tags[i] !== 'latest' && outcomes[i]!.every((o) => !o.ok && o.error.kind !== 'revert'),
    );
  if (stateMissing.length > 0) {
    const again = await read(
      stateMissing.map((i) => ({ address: targets[i]!.address, blockTag: 'latest' })),
    );
    stateMissing.forEach((i, k) => {
      outcomes[i] = again[k]!;
      tags[i] = 'latest';
    });
  }
  return Promise.all(targets.map((t, i) => interpret(rpc, t.address, outcomes[i]!, tags[i]!)));
}

/** The probe calls and the code of one contract: what `read` asks per contract. */
const PER_CONTRACT = PROBE_REQUEST_COUNT + 1;

async function interpret(
  rpc: RpcClient,
  address: string,
  outcomes: readonly RpcOutcome<unknown>[],
  tag: string,
): Promise<ProbeOutcome> {
  const calls = outcomes.slice(0, -1);
  const codeOutcome = outcomes[outcomes.length - 1];
  const code =
    codeOutcome?.ok && typeof codeOutcome.result === 'string' ? codeOutcome.result : null;
  // Nothing answered as a token would, and the code cannot route the surface: decide without
  // parsing the dispatcher (most deployments). A token whose surface forwards to a contract not
  // yet set reverts on every call, yet routes all three functions: its dispatcher decides.
  const early = interpretProbe(calls, UNREAD_DISPATCH);
  if (
    early.kind === 'not-token' &&
    early.missing !== TRANSFER &&
    !answeredAny(calls) &&
    !mentionsSurface(code)
  )
    return early;
  return interpretProbe(calls, await dispatchOf(rpc, address, code, tag));
}

/**
 * Does the code hold the three surface selectors at all? A dispatcher compares the call data
 * with each selector as a PUSH4 operand, so code without one of them cannot route it; code with
 * all three may only call them on another token, which the dispatcher then tells apart.
 */
function mentionsSurface(code: string | null): boolean {
  if (code === null) return false;
  const lower = code.toLowerCase();
  return Object.values(SURFACE).every((selector) => lower.includes(selector));
}

const withCode = (address: string, tag: string) => [
  ...probeRequests(address, tag),
  { method: 'eth_getCode', params: [address, tag] },
];

/** totalSupply() or balanceOf(address) answered something: the code is worth reading. */
const answeredAny = (calls: readonly RpcOutcome<unknown>[]) => calls.slice(0, 2).some((o) => o.ok);

/**
 * The selectors the contract routes. A contract that delegates and does not route transfer
 * itself is followed to its implementation; a proxy whose implementation cannot be found has
 * no readable dispatcher, and the calls decide.
 */
async function dispatchOf(
  rpc: RpcClient,
  address: string,
  code: string | null,
  blockTag: string,
): Promise<Dispatch> {
  if (!code || code === '0x') return { selectors: null, source: 'no code' };
  const own = dispatcherSelectors(code);
  if (own?.has(SURFACE.transfer)) return { selectors: own, source: 'the code' };
  if (!hasOpcode(code, DELEGATECALL)) {
    return own
      ? { selectors: own, source: 'the code' }
      : { selectors: null, source: 'evmole found no dispatcher in the code' };
  }
  const resolution = await resolveProxy(rpc, { address, code, blockTag });
  const implementation = resolution.info.implementation;
  const implSelectors = dispatcherSelectors(resolution.implementationCode);
  if (!implementation || !implSelectors) {
    return { selectors: null, source: 'a proxy whose implementation could not be read' };
  }
  return {
    selectors: new Set([...(own ?? []), ...implSelectors]),
    source: `implementation ${implementation}`,
  };
}
