import { type FunctionFragment, Interface } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ContractName, loadArtifact } from '../../../contracts/artifacts.ts';
import { createRpcClient } from '../../../infra/rpc/index.ts';
import { startTestChain, type TestChain } from '../../../test/support/chain.ts';
import { startFaultProxy } from '../../../test/support/protocol/fault-proxy.ts';
import { type CorpusToken, deployCorpusToken } from '../../../test/support/token-corpus.ts';
import type { RpcClient } from '../../evm/rpc.ts';
import type { ExtractedFunction } from '../types.ts';
import {
  type BehaviourReport,
  probeAdminBehaviour,
  probeCandidates,
  STANDARD_SELECTORS,
} from './behaviour.ts';
import { amountsFor, findPool } from './simulation.ts';

/**
 * Behaviour probes on Anvil: the disguised-name corpus tokens are recognised by what their
 * functions do. The function list comes from each contract's ABI here (the selectors stage gets
 * it from the bytecode), and nothing is catalogued, so only behaviour can tell.
 */

let chain: TestChain;
let rpc: RpcClient;
const deployed = new Map<string, CorpusToken>();

const KINDS: Record<string, ContractName> = {
  'disguised-mint': 'DisguisedMintToken',
  'disguised-blacklist': 'DisguisedBlacklistToken',
  'disguised-pause': 'DisguisedPauseToken',
  'disguised-fee': 'DisguisedFeeToken',
  'disguised-balance': 'DisguisedBalanceToken',
  'fake-renounce': 'FakeRenounceToken',
  simple: 'SimpleToken',
  'trading-disabled': 'LaunchGuardToken',
};

function functionsOf(name: ContractName): ExtractedFunction[] {
  const iface = new Interface(loadArtifact(name).abi);
  return iface.fragments
    .filter((f): f is FunctionFragment => f.type === 'function')
    .map((f) => ({
      selector: f.selector.slice(2),
      arguments: f.inputs.map((i) => i.type).join(','),
      state_mutability: f.stateMutability,
    }));
}

async function probe(
  kind: string,
  callers: { address: string; role: 'owner' | 'creator' }[] = [
    { address: chain.account, role: 'owner' },
  ],
  options: { gated?: ReadonlySet<string>; rpc?: RpcClient } = {},
): Promise<BehaviourReport> {
  const token = deployed.get(kind)!;
  const pool = (await findPool(rpc, chain.chainConfig(), token.address))!;
  return probeAdminBehaviour(options.rpc ?? rpc, {
    ...(options.gated ? { gated: options.gated } : {}),
    token: token.address,
    pool,
    functions: functionsOf(KINDS[kind]!),
    catalogued: new Set(['f2fde38b']),
    callers,
    amountIn: amountsFor(pool.nativeReserve)[0]!,
  });
}

beforeAll(async () => {
  chain = await startTestChain();
  rpc = createRpcClient({ urls: [chain.anvil.rpcUrl] });
  for (const kind of Object.keys(KINDS)) deployed.set(kind, await deployCorpusToken(chain, kind));
}, 120_000);

afterAll(async () => {
  await chain?.stop();
});

describe('probeAdminBehaviour', () => {
  it('spends no call on a token none of whose candidates is gated on its caller', async () => {
    const proxy = await startFaultProxy(chain.anvil.rpcUrl, { rate: 0 });
    try {
      const counted = createRpcClient({ urls: [proxy.url] });
      const ungated = await probe('disguised-mint', undefined, { gated: new Set(), rpc: counted });
      expect(ungated.probed).toEqual([]);
      expect(ungated.findings).toEqual([]);
      expect(ungated.skipped.length).toBeGreaterThan(0);
      expect(proxy.calls.size).toBe(0);
      // The same token with its disguised mint among the gated functions is probed and caught.
      const gated = new Set(ungated.skipped);
      const report = await probe('disguised-mint', undefined, { gated, rpc: counted });
      expect(report.findings.map((f) => f.family)).toContain('mint');
    } finally {
      await proxy.close();
    }
  });

  it.each([
    ['disguised-mint', 'mint', 'syncEmission(address,uint256)'],
    ['disguised-blacklist', 'blacklist', 'updateHolderTier(address,bool)'],
    ['disguised-pause', 'pause', 'setMaintenanceWindow(bool)'],
    ['disguised-balance', 'balance-change', 'reconcileLedger(address,uint256)'],
  ])('tells what %s does (%s) from behaviour alone', async (kind, family, signature) => {
    const report = await probe(kind);
    const selector = new Interface([`function ${signature}`])
      .getFunction(signature.split('(')[0]!)!
      .selector.slice(2);
    expect(report.findings).toEqual([
      expect.objectContaining({ selector, family, caller_role: 'owner', caller: chain.account }),
    ]);
  });

  it('finds a fee setter by its effect, searches its cap, and reads a fee that takes the whole sale as a limit', async () => {
    const report = await probe('disguised-fee');
    const selector = new Interface(['function updatePoolWeights(uint256,uint256)'])
      .getFunction('updatePoolWeights')!
      .selector.slice(2);
    const fee = report.findings.find((f) => f.family === 'fee')!;
    expect(fee.selector).toBe(selector);
    // require(buyBps <= DENOMINATOR && sellBps <= DENOMINATOR): 10,000 basis points, 100 %.
    expect(fee.after?.fee_cap).toBe('10000');
    expect(fee.detail).toMatch(/accepts at most 10000 \(searched\)/);
    expect(report.findings).toEqual([
      expect.objectContaining({ family: 'fee', selector }),
      expect.objectContaining({ family: 'trading-switch', selector }),
    ]);
  });

  it('finds the hidden admin of a fake renounce through the creator', async () => {
    const report = await probe('fake-renounce', [{ address: chain.account, role: 'creator' }]);
    expect(report.findings).toEqual([
      expect.objectContaining({ family: 'mint', caller_role: 'creator' }),
    ]);
  });

  it('finds the trading switch of a token whose trading is not enabled', async () => {
    const report = await probe('trading-disabled');
    expect(report.findings).toEqual([expect.objectContaining({ family: 'trading-switch' })]);
  });

  it('finds nothing in an honest token, and refuses a stranger as the privileged caller', async () => {
    expect((await probe('simple')).findings).toEqual([]);
    const stranger = '0x00000000000000000000000000000000000abcde';
    expect(
      (await probe('disguised-mint', [{ address: stranger, role: 'owner' }])).findings,
    ).toEqual([]);
  });
});

describe('probeCandidates', () => {
  it('leaves out views, standard ERC-20 functions, catalogued ones and unfillable arguments', () => {
    const { candidates, skipped } = probeCandidates(
      [
        { selector: 'a9059cbb', arguments: 'address,uint256', state_mutability: 'nonpayable' },
        { selector: '70a08231', arguments: 'address', state_mutability: 'view' },
        { selector: '40c10f19', arguments: 'address,uint256', state_mutability: 'nonpayable' },
        { selector: '11111111', arguments: '(uint256,address)', state_mutability: 'nonpayable' },
        { selector: '22222222', arguments: 'address[],bool', state_mutability: 'nonpayable' },
      ],
      new Set(['40c10f19']),
    );
    expect(STANDARD_SELECTORS.has('a9059cbb')).toBe(true);
    expect(candidates.map((c) => c.selector)).toEqual(['22222222']);
    expect(skipped).toEqual(['11111111']);
  });
});
