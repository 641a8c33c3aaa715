import { Writable } from 'node:stream';
import {
  Contract,
  dataLength,
  decodeBytes32String,
  getAddress,
  Interface,
  id,
  JsonRpcProvider,
  NonceManager,
  parseEther,
  toBeHex,
  Wallet,
  ZeroAddress,
  zeroPadValue,
} from 'ethers';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadArtifact, uniswapArtifact } from '../../../contracts/artifacts.ts';
import { ANVIL_PRIVATE_KEYS, type AnvilHandle, startAnvil } from './anvil.ts';
import {
  createDemoLauncher,
  type DemoLauncher,
  type LaunchedToken,
  TOKEN_KINDS,
  type TokenKind,
} from './demo-launcher.ts';
import { deployUniswapV2, type UniswapV2Deployment } from './uniswap.ts';

const FACTORY_KINDS: ReadonlySet<TokenKind> = new Set([
  'factory-create',
  'factory-create2',
  'clone',
]);
// bytes32(uint256(keccak256('eip1967.proxy.implementation')) - 1), computed as EIP-1967 defines it.
const IMPLEMENTATION_SLOT = toBeHex(BigInt(id('eip1967.proxy.implementation')) - 1n, 32);
const EIP1167_RUNTIME_PREFIX = '0x363d3d373d3d3d363d73';
const EIP1167_RUNTIME_BYTES = 45;
const BUY_ETH = parseEther('0.05');
// Explicit gas: estimates can miss the pair's price-accumulator writes (see demo-chain.ts).
const SWAP_GAS_LIMIT = 500_000n;

const erc20 = new Interface(loadArtifact('SimpleToken').abi);
const routerAbi = uniswapArtifact('UniswapV2Router02').abi;
const pairAbi = uniswapArtifact('UniswapV2Pair').abi;

describe('createDemoLauncher', () => {
  let anvil: AnvilHandle;
  let provider: JsonRpcProvider;
  let uni: UniswapV2Deployment;
  let launcher: DemoLauncher;
  const launchedByKind = new Map<TokenKind, LaunchedToken>();
  const deadline = () => Math.floor(Date.now() / 1000) + 600;

  beforeAll(async () => {
    anvil = await startAnvil();
    provider = new JsonRpcProvider(anvil.rpcUrl, undefined, {
      staticNetwork: true,
      pollingInterval: 50,
      cacheTimeout: -1,
    });
    uni = await deployUniswapV2(new NonceManager(new Wallet(ANVIL_PRIVATE_KEYS[0], provider)));
    launcher = createDemoLauncher({
      rpcUrl: anvil.rpcUrl,
      privateKey: ANVIL_PRIVATE_KEYS[1],
      uniswap: uni,
    });
  });

  afterAll(async () => {
    await launcher?.stop();
    provider?.destroy();
    const pid = anvil?.pid;
    await anvil?.stop();
    if (pid) expect(() => process.kill(pid, 0)).toThrow();
  });

  for (const kind of TOKEN_KINDS) {
    it(`launchOne('${kind}') deploys code${kind === 'not-a-token' ? '' : ' with supply and a V2 pair'}`, async () => {
      const token = await launcher.launchOne(kind, { liquidity: true, buy: true });
      launchedByKind.set(kind, token);
      expect(token.kind).toBe(kind);
      expect(token.address).toBe(getAddress(token.address));
      expect(dataLength(await provider.getCode(token.address))).toBeGreaterThan(0);

      const tx = await provider.getTransaction(token.txHash);
      const receipt = await provider.getTransactionReceipt(token.txHash);
      expect(receipt?.status).toBe(1);
      if (FACTORY_KINDS.has(kind)) {
        // Created inside a call: the token is neither the tx recipient nor a contractAddress.
        expect(tx?.to).not.toBeNull();
        expect(getAddress(tx!.to!)).not.toBe(token.address);
        expect(receipt?.contractAddress).toBeNull();
      } else {
        expect(tx?.to).toBeNull();
        expect(receipt?.contractAddress).toBe(token.address);
      }

      if (kind === 'not-a-token') {
        expect(token.pair).toBeUndefined();
        await expect(
          provider.call({ to: token.address, data: erc20.encodeFunctionData('totalSupply') }),
        ).rejects.toThrow();
        return;
      }

      const totalSupply = erc20.decodeFunctionResult(
        'totalSupply',
        await provider.call({ to: token.address, data: erc20.encodeFunctionData('totalSupply') }),
      )[0] as bigint;
      expect(totalSupply).toBeGreaterThan(0n);

      expect(token.pair).toBeDefined();
      const pair = new Contract(token.pair!, pairAbi, provider);
      const [r0, r1] = (await pair.getFunction('getReserves')()) as [bigint, bigint];
      expect(r0).toBeGreaterThan(0n);
      expect(r1).toBeGreaterThan(0n);
      const members = [await pair.getFunction('token0')(), await pair.getFunction('token1')()];
      expect(members).toContain(token.address);
      expect(members).toContain(uni.weth);
    });
  }

  it('Bytes32Token returns a raw 32-byte name and symbol', async () => {
    const token = launchedByKind.get('bytes32')!;
    const nameData = await provider.call({
      to: token.address,
      data: erc20.encodeFunctionData('name'),
    });
    expect(dataLength(nameData)).toBe(32);
    expect(decodeBytes32String(nameData)).toBe(token.name);
    const symbolData = await provider.call({
      to: token.address,
      data: erc20.encodeFunctionData('symbol'),
    });
    expect(dataLength(symbolData)).toBe(32);
    expect(decodeBytes32String(symbolData)).toBe(token.symbol);
  });

  it('string-metadata tokens answer name() and symbol() with what was launched', async () => {
    for (const kind of ['simple', 'proxy', 'clone', 'factory-create2'] as const) {
      const token = launchedByKind.get(kind)!;
      const c = new Contract(token.address, erc20, provider);
      expect(await c.getFunction('name')()).toBe(token.name);
      expect(await c.getFunction('symbol')()).toBe(token.symbol);
    }
  });

  it('proxy stores its implementation in the ERC-1967 slot; clone is EIP-1167 code', async () => {
    expect(IMPLEMENTATION_SLOT).toBe(
      '0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc',
    );
    const proxy = launchedByKind.get('proxy')!;
    const slot = await provider.getStorage(proxy.address, IMPLEMENTATION_SLOT);
    expect(slot).not.toBe(zeroPadValue('0x', 32));
    const impl = getAddress(`0x${slot.slice(-40)}`);
    // The slot holds exactly the implementation the constructor was given (its Upgraded event)...
    const receipt = await provider.getTransactionReceipt(proxy.txHash);
    const proxyIface = new Interface(loadArtifact('TokenProxy').abi);
    const upgraded = receipt!.logs
      .filter((entry) => getAddress(entry.address) === getAddress(proxy.address))
      .map((entry) => proxyIface.parseLog(entry))
      .find((parsed) => parsed?.name === 'Upgraded');
    expect(upgraded).toBeTruthy();
    expect(getAddress(upgraded!.args.getValue('implementation') as string)).toBe(impl);
    // ...and that is the UpgradeableToken runtime code.
    expect(await provider.getCode(impl)).toBe(loadArtifact('UpgradeableToken').deployedBytecode);

    const clone = launchedByKind.get('clone')!;
    const code = await provider.getCode(clone.address);
    expect(dataLength(code)).toBe(EIP1167_RUNTIME_BYTES);
    expect(code.startsWith(EIP1167_RUNTIME_PREFIX)).toBe(true);
    expect(code.toLowerCase()).toContain(impl.slice(2).toLowerCase()); // same shared implementation
  });

  it('fake-renounce looks renounced but the hidden admin still mints', async () => {
    // A launcher of its own, so that minting from its account leaves the main one's nonces alone.
    const own = createDemoLauncher({
      rpcUrl: anvil.rpcUrl,
      privateKey: ANVIL_PRIVATE_KEYS[6],
      uniswap: uni,
    });
    const token = await own.launchOne('fake-renounce', { liquidity: false });
    await own.stop();
    const admin = new Wallet(ANVIL_PRIVATE_KEYS[6], provider);
    const asAdmin = new Contract(token.address, loadArtifact('FakeRenounceToken').abi, admin);
    expect(await asAdmin.getFunction('owner')()).toBe(ZeroAddress);
    const before = (await asAdmin.getFunction('totalSupply')()) as bigint;
    await (await asAdmin.getFunction('distributeRewards')(admin.address, 1000n)).wait();
    expect(await asAdmin.getFunction('totalSupply')()).toBe(before + 1000n);
    expect(await asAdmin.getFunction('owner')()).toBe(ZeroAddress);
  });

  it('fake-renounce from the mix is renounced as well', async () => {
    const token = launchedByKind.get('fake-renounce')!;
    const c = new Contract(token.address, loadArtifact('FakeRenounceToken').abi, provider);
    expect(await c.getFunction('owner')()).toBe(ZeroAddress);
  });

  describe('trading rules seen by an outside buyer', () => {
    let buyer: NonceManager;
    let buyerAddress: string;
    let router: Contract;

    beforeAll(() => {
      // NonceManager: ethers caches identical nonce reads briefly, so back-to-back sends from a
      // bare Wallet can reuse a nonce.
      const wallet = new Wallet(ANVIL_PRIVATE_KEYS[2], provider);
      buyerAddress = wallet.address;
      buyer = new NonceManager(wallet);
      router = new Contract(uni.router, routerAbi, buyer);
    });

    async function buy(token: string): Promise<{ received: bigint; quoted: bigint }> {
      const c = new Contract(token, erc20, provider);
      const before = (await c.getFunction('balanceOf')(buyerAddress)) as bigint;
      const [, quoted] = (await router.getFunction('getAmountsOut')(BUY_ETH, [
        uni.weth,
        token,
      ])) as bigint[];
      await (
        await router.getFunction('swapExactETHForTokensSupportingFeeOnTransferTokens')(
          0,
          [uni.weth, token],
          buyerAddress,
          deadline(),
          {
            value: BUY_ETH,
            gasLimit: SWAP_GAS_LIMIT,
          },
        )
      ).wait();
      return {
        received: ((await c.getFunction('balanceOf')(buyerAddress)) as bigint) - before,
        quoted: quoted!,
      };
    }

    async function sellAll(token: string): Promise<void> {
      const c = new Contract(token, erc20, buyer);
      const amount = (await c.getFunction('balanceOf')(buyerAddress)) as bigint;
      await (await c.getFunction('approve')(uni.router, amount)).wait();
      await (
        await router.getFunction('swapExactTokensForETHSupportingFeeOnTransferTokens')(
          amount,
          0,
          [token, uni.weth],
          buyerAddress,
          deadline(),
          {
            gasLimit: SWAP_GAS_LIMIT,
          },
        )
      ).wait();
    }

    it('honest token: buy then sell both work', async () => {
      const token = launchedByKind.get('simple')!.address;
      const { received, quoted } = await buy(token);
      expect(received).toBe(quoted);
      await sellAll(token);
      expect(
        await new Contract(token, erc20, provider).getFunction('balanceOf')(buyerAddress),
      ).toBe(0n);
    });

    it('honeypot: buy works, sell reverts', async () => {
      const token = launchedByKind.get('honeypot')!.address;
      const { received } = await buy(token);
      expect(received).toBeGreaterThan(0n);
      await expect(sellAll(token)).rejects.toThrow();
      // Resynchronise: had the revert surfaced at gas estimation, NonceManager would already
      // have counted a nonce for a transaction that was never sent.
      buyer.reset();
    });

    it('tax token: the buy tax is taken from what the buyer receives', async () => {
      const token = launchedByKind.get('tax')!.address;
      const tax = new Contract(token, loadArtifact('TaxToken').abi, provider);
      const buyBps = (await tax.getFunction('buyFeeBps')()) as bigint;
      const { received, quoted } = await buy(token);
      expect(received).toBe(quoted - (quoted * buyBps) / 10_000n);
    });
  });

  it('launchOne() without a kind draws from the mix', async () => {
    const token = await launcher.launchOne();
    expect(TOKEN_KINDS).toContain(token.kind);
    expect(dataLength(await provider.getCode(token.address))).toBeGreaterThan(0);
  });

  it('start() keeps launching until stop(), which waits for the launch in flight', async () => {
    const seen: LaunchedToken[] = [];
    const loop = createDemoLauncher({
      rpcUrl: anvil.rpcUrl,
      privateKey: ANVIL_PRIVATE_KEYS[3],
      uniswap: uni,
      intervalMs: 20,
      onLaunch: (t) => seen.push(t),
    });
    loop.start();
    loop.start(); // idempotent
    while (seen.length < 3) await new Promise((r) => setTimeout(r, 50));
    await loop.stop();
    const count = seen.length;
    await new Promise((r) => setTimeout(r, 200));
    expect(seen.length).toBe(count);
    await expect(loop.launchOne()).rejects.toThrow(/stopped/);
  });

  it('a failing launch is logged and the loop carries on', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    // A V2 factory address without code: getPair() cannot be decoded, so every launch that
    // adds liquidity fails after the token was deployed.
    const broken = createDemoLauncher({
      rpcUrl: anvil.rpcUrl,
      privateKey: ANVIL_PRIVATE_KEYS[4],
      uniswap: { ...uni, factory: new Wallet(ANVIL_PRIVATE_KEYS[5]).address },
      intervalMs: 20,
      random: () => 0, // always 'simple', always with liquidity
      logger: pino({ level: 'error' }, sink),
    });
    broken.start();
    const failures = () => lines.filter((l) => l.includes('launch failed')).length;
    while (failures() < 2) await new Promise((r) => setTimeout(r, 50));
    await broken.stop();
    // Nonces were resynchronised after each failure: a plain launch still goes through.
    const healthy = createDemoLauncher({
      rpcUrl: anvil.rpcUrl,
      privateKey: ANVIL_PRIVATE_KEYS[4],
      uniswap: uni,
    });
    const token = await healthy.launchOne('simple', { liquidity: false });
    expect(token.pair).toBeUndefined();
    await healthy.stop();
  });
});
