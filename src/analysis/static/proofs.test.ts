import { ContractFactory, Interface, type InterfaceAbi } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadArtifact } from '../../../contracts/artifacts.ts';
import { createRpcClient } from '../../../infra/rpc/index.ts';
import { startTestChain, type TestChain, waitMined } from '../../../test/support/chain.ts';
import { type Compiled, compileSolidityAsync } from '../../../test/support/solc.ts';
import { solidityFixture } from '../../../test/support/solidity.ts';
import { createChainReader } from '../../evm/chain-reader.ts';
import type { RpcClient } from '../../evm/rpc.ts';
import { assessRisk } from '../risk/index.ts';
import type { AdminFunction, StaticAnalysis } from '../types.ts';
import { analyzeStatic } from './static.ts';

/**
 * Propose, then prove: the walk's powers run on Anvil as their privileged caller (one eth_call
 * with the PowerProver placed by state override) and are proven by their effect, with the numbers;
 * a power nobody can run any more (owner renounced) stays, unconfirmed, at a lower weight.
 */

const COMPILE_TIMEOUT_MS = 300_000;
const SOURCE = `${solidityFixture('oz5-update')}
// leak: the owner burns any holder's tokens.
contract OwnerBurn5 is ERC20, Ownable {
  constructor() { _mint(_msgSender(), 10 ** 24); }
  function cleanup(address a, uint256 v) external onlyOwner { _update(a, address(0), v); }
}
// limit: transfers stop while the owner's flag is set.
contract Pausable5 is ERC20, Ownable {
  bool public halted;
  constructor() { _mint(_msgSender(), 10 ** 24); }
  function halt() external onlyOwner { halted = true; }
  function _update(address from, address to, uint256 value) internal override {
    require(!halted || from == address(0), "halted");
    super._update(from, to, value);
  }
}
// fee: capped at 3,333 (basis points), for the cap search.
contract CappedFee5 is ERC20, Ownable {
  uint256 public fee;
  constructor() { _mint(_msgSender(), 10 ** 24); }
  function setFee(uint256 f) external onlyOwner { require(f <= 3333, "cap"); fee = f; }
}
// limit: a sale fee (basis points) under an uncatalogued setter that accepts the whole amount.
contract WholeFee5 is ERC20, Ownable {
  uint256 public sellBps = 200;
  address public pair = address(0xbeef);
  constructor() { _mint(_msgSender(), 10 ** 24); }
  function adjustRate(uint256 bps) external onlyOwner { require(bps <= 10_000, "bps"); sellBps = bps; }
  function _update(address from, address to, uint256 value) internal override {
    if (to == pair && from != owner()) {
      uint256 fee = (value * sellBps) / 10_000;
      super._update(from, owner(), fee);
      value -= fee;
    }
    super._update(from, to, value);
  }
}
// honest twin: the same fee and setter, capped at 10 %.
contract TenthFee5 is ERC20, Ownable {
  uint256 public sellBps = 200;
  address public pair = address(0xbeef);
  constructor() { _mint(_msgSender(), 10 ** 24); }
  function adjustRate(uint256 bps) external onlyOwner { require(bps <= 1_000, "bps"); sellBps = bps; }
  function _update(address from, address to, uint256 value) internal override {
    if (to == pair && from != owner()) {
      uint256 fee = (value * sellBps) / 10_000;
      super._update(from, owner(), fee);
      value -= fee;
    }
    super._update(from, to, value);
  }
}
// siphon: an uncapped sale fee credited to a wallet the owner sets.
contract WalletFee5 is ERC20, Ownable {
  uint256 public sellBps = 200;
  address public pair = address(0xbeef);
  address public feeWallet;
  constructor() { _mint(_msgSender(), 10 ** 24); feeWallet = _msgSender(); }
  function adjustRate(uint256 bps) external onlyOwner { sellBps = bps; }
  function moveWallet(address w) external onlyOwner { feeWallet = w; }
  function _update(address from, address to, uint256 value) internal override {
    if (to == pair && from != owner()) {
      uint256 fee = (value * sellBps) / 10_000;
      super._update(from, feeWallet, fee);
      value -= fee;
    }
    super._update(from, to, value);
  }
}
// honest twin of the siphon: the same whole-amount fee, burnt to a wallet fixed at deployment.
contract FixedWalletFee5 is ERC20, Ownable {
  uint256 public sellBps = 200;
  address public pair = address(0xbeef);
  address public immutable feeWallet = address(0xdead);
  constructor() { _mint(_msgSender(), 10 ** 24); }
  function adjustRate(uint256 bps) external onlyOwner { require(bps <= 10_000, "bps"); sellBps = bps; }
  function _update(address from, address to, uint256 value) internal override {
    if (to == pair && from != owner()) {
      uint256 fee = (value * sellBps) / 10_000;
      super._update(from, feeWallet, fee);
      value -= fee;
    }
    super._update(from, to, value);
  }
}
// limit: buy and sell fees packed in one slot, set by one uncapped setter.
contract PackedFee5 is ERC20, Ownable {
  uint16 public buyBps = 100;
  uint16 public sellBps = 200;
  address public pair = address(0xbeef);
  constructor() { _mint(_msgSender(), 10 ** 24); }
  function setRates(uint16 b, uint16 s) external onlyOwner { buyBps = b; sellBps = s; }
  function _update(address from, address to, uint256 value) internal override {
    if (to == pair && from != owner()) {
      uint256 fee = (value * sellBps) / 10_000;
      super._update(from, address(0xdead), fee);
      value -= fee;
    }
    super._update(from, to, value);
  }
}
// honest twin: the same packed fees, capped at 10 %.
contract PackedTenthFee5 is ERC20, Ownable {
  uint16 public buyBps = 100;
  uint16 public sellBps = 200;
  address public pair = address(0xbeef);
  constructor() { _mint(_msgSender(), 10 ** 24); }
  function setRates(uint16 b, uint16 s) external onlyOwner {
    require(b <= 1_000 && s <= 1_000, "cap");
    buyBps = b;
    sellBps = s;
  }
  function _update(address from, address to, uint256 value) internal override {
    if (to == pair && from != owner()) {
      uint256 fee = (value * sellBps) / 10_000;
      super._update(from, address(0xdead), fee);
      value -= fee;
    }
    super._update(from, to, value);
  }
}
// limit: transfers closed until the owner opens them, and the owner can close them again.
contract Launch5 is ERC20, Ownable {
  bool public transfersEnabled;
  constructor() { _mint(_msgSender(), 10 ** 24); }
  function setTransfersEnabled(bool on) external onlyOwner { transfersEnabled = on; }
  function _update(address from, address to, uint256 value) internal override {
    require(transfersEnabled || from == address(0) || from == owner(), "closed");
    super._update(from, to, value);
  }
}
`;

let chain: TestChain;
let rpc: RpcClient;
let compiled: Record<string, Compiled>;

beforeAll(async () => {
  [chain, compiled] = await Promise.all([startTestChain(), compileSolidityAsync(SOURCE)]);
  rpc = createRpcClient({ urls: [chain.anvil.rpcUrl] });
}, COMPILE_TIMEOUT_MS);
afterAll(async () => chain?.stop());

async function deploy(name: string): Promise<string> {
  const c = compiled[name]!;
  const factory = new ContractFactory(c.abi as InterfaceAbi, c.bytecode, chain.signer);
  const tx = await factory.getDeployTransaction();
  const receipt = await waitMined(chain.provider, chain.signer.sendTransaction(tx));
  return receipt.contractAddress!.toLowerCase();
}

async function send(name: string, address: string, fn: string): Promise<void> {
  const data = new Interface(compiled[name]!.abi as InterfaceAbi).encodeFunctionData(fn, []);
  await waitMined(chain.provider, chain.signer.sendTransaction({ to: address, data }));
}

async function analyse(address: string): Promise<StaticAnalysis> {
  const code = await rpc.request<string>('eth_getCode', [address, 'latest']);
  return analyzeStatic({ rpc, reader: createChainReader(rpc) }, { chainId: 31337, address, code });
}

const byFamily = (a: StaticAnalysis, family: string): AdminFunction | undefined =>
  a.admin_functions.find((f) => f.family === family);

describe('the PowerProver cap search', () => {
  it('finds the highest value a setter accepts from its caller by a ladder and a binary search', async () => {
    const address = await deploy('CappedFee5');
    const prover = loadArtifact('PowerProver');
    const iface = new Interface(prover.abi);
    const template = new Interface(['function setFee(uint256)']).encodeFunctionData('setFee', [0]);
    const data = iface.encodeFunctionData('searchCap', [
      address,
      template,
      [4],
      [1n, 100n, 10_000n, (1n << 256n) - 1n],
    ]);
    const owner = chain.account.toLowerCase();
    const call = (from: string) =>
      rpc.request<string>('eth_call', [
        { from, to: from, data, gas: '0x1c9c380' },
        'latest',
        { [from]: { code: prover.deployedBytecode } },
      ]);
    const [found, cap] = iface.decodeFunctionResult('searchCap', await call(owner));
    expect([found, cap]).toEqual([true, 3333n]);
    // A stranger's calls are refused at every value: no cap to find.
    const [strangerFound] = iface.decodeFunctionResult(
      'searchCap',
      await call('0x00000000000000000000000000000000000abcde'),
    );
    expect(strangerFound).toBe(false);
  });
});

describe('propose, then prove', () => {
  it('a mint runs as the owner: the supply and the holder balance rise, with the numbers', async () => {
    const a = await analyse(await deploy('BotListMint5'));
    const mint = byFamily(a, 'mint')!;
    expect(mint.proof?.status).toBe('proven');
    expect(mint.proof?.detail).toMatch(/called by the (owner|address stored in slot)/);
    expect(BigInt(mint.proof!.after!.total_supply!)).toBeGreaterThan(
      BigInt(mint.proof!.before!.total_supply!),
    );
    const factor = assessRisk({
      trusted: false,
      static: a,
      behaviour: [],
      simulation: null,
      similarHoneypots: 0,
    }).risk_factors.find((f) => f.code === 'admin:mint')!;
    expect(factor.proof?.status).toBe('proven');
  });

  it('a leak runs as the owner: a third holder loses tokens it never approved', async () => {
    const a = await analyse(await deploy('OwnerBurn5'));
    const leak = byFamily(a, 'burn-from') ?? byFamily(a, 'balance-change');
    expect(leak?.proof?.status).toBe('proven');
    expect(BigInt(leak!.proof!.after!.holder_balance!)).toBeLessThan(
      BigInt(leak!.proof!.before!.holder_balance!),
    );
  });

  it("a limit runs as the owner: the holder's transfer moves before and fails after", async () => {
    for (const [name, family] of [
      ['Pausable5', 'pause'],
      ['BotList5', 'blacklist'],
    ] as const) {
      const a = await analyse(await deploy(name));
      const limit = byFamily(a, family);
      expect([name, limit?.proof?.status]).toEqual([name, 'proven']);
      expect(limit!.proof!.before!.holder_transfer).toBe('moves');
      expect(limit!.proof!.after!.holder_transfer).toBe('fails');
    }
  });

  it('a switch closed at the start is opened, then seen closing transfers again', async () => {
    const a = await analyse(await deploy('Launch5'));
    const switched = a.admin_functions.filter((f) =>
      ['pause', 'trading-switch'].includes(f.family),
    );
    expect(switched.map((f) => f.proof?.status)).toEqual(['proven']);
    expect(switched[0]!.proof!.detail).toMatch(/booleans the other way/);
  });

  it('a power nobody can run stays, unconfirmed, at a lower weight', async () => {
    const address = await deploy('BotListMint5');
    const live = await analyse(address);
    await send('BotListMint5', address, 'renounceOwnership');
    const renounced = await analyse(address);
    const mint = byFamily(renounced, 'mint')!;
    expect(mint.proof?.status).toBe('unconfirmed');
    const points = (a: StaticAnalysis) =>
      assessRisk({
        trusted: false,
        // the same analysis, as if owner() still named a live owner: only the proof differs
        static: { ...a, ownership: live.ownership },
        behaviour: [],
        simulation: null,
        similarHoneypots: 0,
      }).risk_factors.find((f) => f.code === 'admin:mint')!;
    expect(points(renounced).proof?.status).toBe('unconfirmed');
    expect(points(renounced).points).toBeLessThan(points(live).points);
  });

  it('a fee setter whose searched cap lets the fee take the whole amount is a limit, pool or no pool', async () => {
    const a = await analyse(await deploy('WholeFee5'));
    const limit = byFamily(a, 'trading-switch');
    expect(limit?.proof?.status).toBe('proven');
    expect(limit!.proof!.before).toEqual({ fee_divisor: '10000' });
    expect(limit!.proof!.after).toEqual({ fee_cap: '10000' });
    expect(limit!.access_control).toBe('owner-only');
    // The uncatalogued setter is a fee setter too, proven by the same search.
    expect(byFamily(a, 'fee')?.proof?.after).toEqual({ fee_cap: '10000' });
    const twin = await analyse(await deploy('TenthFee5'));
    expect(byFamily(twin, 'trading-switch')).toBeUndefined();
  });

  it('an uncapped fee credited to a wallet the owner sets is a siphon; fixed at deployment, only a limit', async () => {
    const selectorOf = (sig: string) =>
      new Interface([`function ${sig}`]).getFunction(sig.split('(')[0]!)!.selector.slice(2);
    const siphon = byFamily(await analyse(await deploy('WalletFee5')), 'fee-siphon');
    expect(siphon?.proof?.status).toBe('proven');
    expect(siphon!.proof!.after).toEqual({ fee_cap: 'none' });
    expect(siphon!.proof!.detail).toContain(`0x${selectorOf('moveWallet(address)')}`);
    expect(siphon!.access_control).toBe('owner-only');
    // Credited to owner(): the privileged caller's own wallet.
    const toOwner = byFamily(await analyse(await deploy('WholeFee5')), 'fee-siphon');
    expect(toOwner?.proof?.detail).toContain("the privileged caller's own");
    const fixed = await analyse(await deploy('FixedWalletFee5'));
    expect(byFamily(fixed, 'trading-switch')?.proof?.status).toBe('proven');
    expect(byFamily(fixed, 'fee-siphon')).toBeUndefined();
    // Capped at 10 %: neither a limit nor a siphon.
    expect(byFamily(await analyse(await deploy('TenthFee5')), 'fee-siphon')).toBeUndefined();
    const points = assessRisk({
      trusted: false,
      static: await analyse(await deploy('WalletFee5')),
      behaviour: [],
      simulation: null,
      similarHoneypots: 0,
    }).risk_factors.find((f) => f.code === 'admin:fee-siphon');
    expect(points?.proof?.status).toBe('proven');
  });

  it('fees packed in one slot are matched with their setter: uncapped a limit, capped only a fee', async () => {
    const packed = await analyse(await deploy('PackedFee5'));
    expect(byFamily(packed, 'trading-switch')?.proof).toMatchObject({
      status: 'proven',
      after: { fee_cap: '65535' },
    });
    const twin = await analyse(await deploy('PackedTenthFee5'));
    expect(byFamily(twin, 'trading-switch')).toBeUndefined();
    expect(byFamily(twin, 'fee')?.proof).toMatchObject({
      status: 'proven',
      after: { fee_cap: '1000' },
    });
  });

  it('a capped fee setter, found by its effect whatever its name, is fee_modifiable, proven with its cap', async () => {
    const twin = await analyse(await deploy('TenthFee5'));
    const fee = byFamily(twin, 'fee');
    expect(fee?.selector).toBe(
      new Interface(['function adjustRate(uint256)']).getFunction('adjustRate')!.selector.slice(2),
    );
    expect(fee!.access_control).toBe('owner-only');
    expect(fee!.proof).toMatchObject({
      status: 'proven',
      before: { fee_divisor: '10000' },
      after: { fee_cap: '1000' },
    });
    expect(fee!.proof!.detail).toMatch(/up to 10 % of the amount/);
    const risk = assessRisk({
      trusted: false,
      static: twin,
      behaviour: [],
      simulation: null,
      similarHoneypots: 0,
    });
    const factor = risk.risk_factors.find((f) => f.code === 'admin:fee');
    expect(factor?.proof?.status).toBe('proven');
  });

  it('the honest twins claim no power to prove', async () => {
    for (const name of ['TreasuryFee5', 'MaxTxGate5', 'Exempt5']) {
      const a = await analyse(await deploy(name));
      expect([name, byFamily(a, 'mint')]).toEqual([name, undefined]);
    }
  });
});
