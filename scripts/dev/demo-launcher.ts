// Demo token launcher for the embedded dev chain: keeps deploying a realistic mix of tokens
// (mostly honest, plus the usual scam patterns, proxies and factory-made tokens) and adds
// Uniswap V2 liquidity to most of them, so that every monitor feature sees live data.
import {
  Contract,
  ContractFactory,
  Interface,
  JsonRpcProvider,
  NonceManager,
  Wallet,
  ZeroAddress,
  encodeBytes32String,
  getAddress,
  hexlify,
  parseEther,
  randomBytes,
  type ContractTransactionResponse,
  type InterfaceAbi,
  type TransactionReceipt,
} from 'ethers';
import { pino, type Logger } from 'pino';
import { loadArtifact, uniswapArtifact, type ContractName } from '../../contracts/artifacts.ts';

const DEFAULT_INTERVAL_MS = 12_000;
const RPC_POLLING_MS = 250;
const DEADLINE_SECONDS = 3_600;
// Probability that an ERC-20 launch gets a V2 pair with liquidity (honeypots always do:
// without liquidity there is nothing to trap), and that a pooled token also gets a buy.
const LIQUIDITY_PROBABILITY = 0.8;
const BUY_PROBABILITY = 0.35;
const LIQUIDITY_ETH_MIN = 0.2;
const LIQUIDITY_ETH_MAX = 4;
const BUY_ETH_MIN = 0.01;
const BUY_ETH_MAX = 0.2;
// Share of the supply put into the pool, in percent.
const POOL_SHARE_MIN_PCT = 30;
const POOL_SHARE_MAX_PCT = 95;
// Long-running demos spend ETH on liquidity; on anvil the launcher tops its account up.
const LOW_BALANCE = parseEther('100');
const TOP_UP_BALANCE = parseEther('10000');
// Gas estimates are taken against the current block, but a V2 swap or mint mined one second
// later also writes the pair's price accumulators (zero -> non-zero SSTOREs), so an exact
// estimate can run out of gas. Every call gets this headroom.
const GAS_MARGIN_PCT = 130n;
const GAS_MARGIN_FIXED = 60_000n;

/** Every kind of deployment the launcher makes, with its relative frequency. */
export const TOKEN_KIND_WEIGHTS = {
  simple: 30,
  mintable: 8,
  blacklist: 6,
  tax: 8,
  honeypot: 6,
  pausable: 5,
  'max-tx': 5,
  'fake-renounce': 4,
  bytes32: 3,
  proxy: 5,
  'factory-create': 5,
  'factory-create2': 4,
  clone: 4,
  'not-a-token': 3,
} as const satisfies Record<string, number>;

export type TokenKind = keyof typeof TOKEN_KIND_WEIGHTS;
export const TOKEN_KINDS = Object.keys(TOKEN_KIND_WEIGHTS) as TokenKind[];

// Kinds whose transfer rules need to know the pair (set before liquidity is added).
const PAIR_AWARE_KINDS: ReadonlySet<TokenKind> = new Set(['tax', 'honeypot', 'max-tx']);

const NAME_HEADS = ['Moon', 'Safe', 'Baby', 'Turbo', 'Based', 'Giga', 'Pepe', 'Shiba', 'Floki', 'Degen', 'Rocket', 'Quantum', 'Hyper', 'Golden', 'Lucky', 'Alpha', 'Frog', 'Solar'];
const NAME_TAILS = ['Inu', 'Coin', 'Token', 'AI', 'Cat', 'Swap', 'Finance', 'Protocol', 'DAO', 'Chain', 'X', 'Dog', 'Wif Hat', 'Bull', 'Cash'];
const SUPPLIES = ['1000000', '21000000', '100000000', '420690000000', '1000000000', '1000000000000'];

export interface LaunchedToken {
  kind: TokenKind;
  /** The deployed contract (for proxies and clones: the proxy). */
  address: string;
  /** The transaction that created it (for factory kinds, the factory call). */
  txHash: string;
  /** Uniswap V2 pair with liquidity, when one was created. */
  pair?: string;
  name?: string;
  symbol?: string;
}

export interface LaunchOptions {
  /** Force adding (or skipping) liquidity; default random. Ignored for not-a-token. */
  liquidity?: boolean;
  /** Force a small buy after liquidity; default random. */
  buy?: boolean;
}

export interface DemoLauncherDeps {
  rpcUrl: string;
  privateKey: string;
  uniswap: { weth: string; factory: string; router: string };
  intervalMs?: number;
  logger?: Logger;
  /** Source of randomness in [0, 1); default Math.random. */
  random?: () => number;
  /** Called after every successful launch (loop or launchOne). */
  onLaunch?: (token: LaunchedToken) => void;
}

export interface DemoLauncher {
  start(): void;
  /** Stops the loop and waits for the launch in flight; the launcher cannot be restarted. */
  stop(): Promise<void>;
  /** Deploys one token now: the given kind, or one drawn from the weighted mix. */
  launchOne(kind?: TokenKind, opts?: LaunchOptions): Promise<LaunchedToken>;
}

interface SharedContracts {
  tokenFactory: string;
  upgradeableImpl: string;
}

export function createDemoLauncher(deps: DemoLauncherDeps): DemoLauncher {
  const intervalMs = deps.intervalMs ?? DEFAULT_INTERVAL_MS;
  const log = deps.logger ?? pino({ level: 'silent' });
  const random = deps.random ?? Math.random;
  // cacheTimeout -1: ethers otherwise answers identical reads within 250 ms from a cache, and
  // the launcher reads state (nonces, pairs, balances) right after changing it.
  const provider = new JsonRpcProvider(deps.rpcUrl, undefined, {
    staticNetwork: true,
    pollingInterval: RPC_POLLING_MS,
    cacheTimeout: -1,
  });
  const wallet = new Wallet(deps.privateKey, provider);
  const signer = new NonceManager(wallet);
  const me = wallet.address;

  const routerAbi = uniswapArtifact('UniswapV2Router02').abi;
  const v2FactoryAbi = uniswapArtifact('UniswapV2Factory').abi;
  const tokenFactoryIface = new Interface(loadArtifact('TokenFactory').abi);
  const upgradeableIface = new Interface(loadArtifact('UpgradeableToken').abi);
  const router = new Contract(deps.uniswap.router, routerAbi, signer);
  const v2Factory = new Contract(deps.uniswap.factory, v2FactoryAbi, signer);

  let shared: Promise<SharedContracts> | undefined;
  // Launches run one at a time (loop ticks and direct launchOne calls alike), so the nonce
  // manager can be reset after a failure without disturbing a concurrent launch.
  let queue: Promise<unknown> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  let running = false;
  let stopped = false;
  let inFlight: Promise<unknown> = Promise.resolve();
  let launched = 0;

  const uniform = (min: number, max: number) => min + random() * (max - min);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const chance = (p: number) => random() < p;
  const ethAmount = (min: number, max: number) => parseEther(uniform(min, max).toFixed(4));

  function pickKind(): TokenKind {
    const total = TOKEN_KINDS.reduce((sum, k) => sum + TOKEN_KIND_WEIGHTS[k], 0);
    let r = random() * total;
    for (const kind of TOKEN_KINDS) {
      r -= TOKEN_KIND_WEIGHTS[kind];
      if (r < 0) return kind;
    }
    return 'simple';
  }

  function randomIdentity(): { name: string; symbol: string; supply: bigint } {
    const head = pick(NAME_HEADS);
    const tail = pick(NAME_TAILS);
    const name = `${head} ${tail}`; // < 32 bytes, so it also fits a bytes32 name
    const initials = (head.slice(0, 2) + tail.replace(/\s/g, '').slice(0, 2)).toUpperCase();
    const symbol = chance(0.5) ? initials : `${initials}${Math.floor(random() * 100)}`;
    return { name, symbol, supply: parseEther(pick(SUPPLIES)) };
  }

  async function confirmed(tx: ContractTransactionResponse | null): Promise<TransactionReceipt> {
    if (!tx) throw new Error('no transaction');
    const receipt = await tx.wait(); // throws on a reverted transaction
    if (!receipt) throw new Error(`transaction ${tx.hash} was dropped`);
    return receipt;
  }

  async function deploy(name: ContractName, args: unknown[]): Promise<{ address: string; txHash: string }> {
    const art = loadArtifact(name);
    const contract = await new ContractFactory(art.abi, art.bytecode, signer).deploy(...args);
    const receipt = await confirmed(contract.deploymentTransaction());
    return { address: getAddress(await contract.getAddress()), txHash: receipt.hash };
  }

  /** Sends a contract call with gas headroom and waits for it to be mined successfully. */
  async function send(contract: Contract, method: string, args: unknown[], value?: bigint): Promise<TransactionReceipt> {
    const fn = contract.getFunction(method);
    const overrides = value === undefined ? {} : { value };
    // Estimated before NonceManager.sendTransaction, so a reverting call consumes no nonce.
    const estimate = await fn.estimateGas(...args, overrides);
    const gasLimit = (estimate * GAS_MARGIN_PCT) / 100n + GAS_MARGIN_FIXED;
    return confirmed((await fn(...args, { ...overrides, gasLimit })) as ContractTransactionResponse);
  }

  const call = (address: string, abi: InterfaceAbi, method: string, args: unknown[], value?: bigint) =>
    send(new Contract(address, abi, signer), method, args, value);

  function createdByFactory(receipt: TransactionReceipt): string {
    for (const entry of receipt.logs) {
      if (getAddress(entry.address) !== getAddress(receipt.to ?? ZeroAddress)) continue;
      const parsed = tokenFactoryIface.parseLog(entry);
      if (parsed?.name === 'TokenCreated') return getAddress(parsed.args.getValue('token') as string);
    }
    throw new Error(`no TokenCreated event in ${receipt.hash}`);
  }

  function sharedContracts(): Promise<SharedContracts> {
    shared ??= (async () => {
      const tokenFactory = (await deploy('TokenFactory', [])).address;
      const upgradeableImpl = (await deploy('UpgradeableToken', [])).address;
      log.info({ tokenFactory, upgradeableImpl }, 'demo launcher: shared contracts deployed');
      return { tokenFactory, upgradeableImpl };
    })().catch((err: unknown) => {
      shared = undefined; // retry next time
      throw err;
    });
    return shared;
  }

  async function deployKind(kind: TokenKind, id: { name: string; symbol: string; supply: bigint }) {
    const { name, symbol, supply } = id;
    switch (kind) {
      case 'simple':
        return deploy('SimpleToken', [name, symbol, supply]);
      case 'mintable':
        return deploy('MintableToken', [name, symbol, supply]);
      case 'blacklist':
        return deploy('BlacklistToken', [name, symbol, supply]);
      case 'pausable':
        return deploy('PausableToken', [name, symbol, supply]);
      case 'honeypot':
        return deploy('HoneypotToken', [name, symbol, supply]);
      case 'fake-renounce':
        return deploy('FakeRenounceToken', [name, symbol, supply]);
      case 'tax': {
        // Mostly modest taxes, sometimes a punitive sell tax.
        const buyBps = Math.round(uniform(0, 1_000));
        const sellBps = chance(0.2) ? Math.round(uniform(3_000, 9_900)) : Math.round(uniform(0, 1_500));
        return deploy('TaxToken', [name, symbol, supply, buyBps, sellBps]);
      }
      case 'max-tx':
        return deploy('MaxTxToken', [name, symbol, supply, supply / 100n, (supply * 2n) / 100n]);
      case 'bytes32':
        return deploy('Bytes32Token', [encodeBytes32String(name), encodeBytes32String(symbol), supply]);
      case 'proxy': {
        const { upgradeableImpl } = await sharedContracts();
        const init = upgradeableIface.encodeFunctionData('initialize', [name, symbol, supply, me]);
        return deploy('TokenProxy', [upgradeableImpl, init]);
      }
      case 'factory-create':
      case 'factory-create2':
      case 'clone': {
        const { tokenFactory, upgradeableImpl } = await sharedContracts();
        const abi = loadArtifact('TokenFactory').abi;
        const receipt =
          kind === 'factory-create'
            ? await call(tokenFactory, abi, 'createToken', [name, symbol, supply])
            : kind === 'factory-create2'
              ? await call(tokenFactory, abi, 'createToken2', [name, symbol, supply, hexlify(randomBytes(32))])
              : await call(tokenFactory, abi, 'cloneTokenAndCall', [
                  upgradeableImpl,
                  upgradeableIface.encodeFunctionData('initialize', [name, symbol, supply, me]),
                ]);
        return { address: createdByFactory(receipt), txHash: receipt.hash };
      }
      case 'not-a-token': {
        const deployed = await deploy('NotAToken', []);
        await call(deployed.address, loadArtifact('NotAToken').abi, 'setValue', [encodeBytes32String('greeting'), `hello from ${name}`]);
        return deployed;
      }
    }
  }

  async function chainDeadline(): Promise<number> {
    const block = await provider.getBlock('latest');
    return (block?.timestamp ?? Math.floor(Date.now() / 1000)) + DEADLINE_SECONDS;
  }

  async function ensureFunds(): Promise<void> {
    if ((await provider.getBalance(me)) >= LOW_BALANCE) return;
    try {
      await provider.send('anvil_setBalance', [me, `0x${TOP_UP_BALANCE.toString(16)}`]);
      log.info({ account: me }, 'demo launcher: topped up launcher balance');
    } catch {
      log.warn({ account: me }, 'demo launcher: balance low and the node cannot top it up');
    }
  }

  async function addLiquidity(kind: TokenKind, token: string, buy: boolean): Promise<string> {
    const abi = loadArtifact(kindArtifact(kind)).abi;
    const erc20 = new Contract(token, abi, signer);
    if (PAIR_AWARE_KINDS.has(kind)) {
      // Create the pair first so the token knows it before the first transfer into it.
      await send(v2Factory, 'createPair', [token, deps.uniswap.weth]);
      const pairAddr = (await v2Factory.getFunction('getPair')(token, deps.uniswap.weth)) as string;
      await send(erc20, 'setPair', [pairAddr]);
    }
    const balance = (await erc20.getFunction('balanceOf')(me)) as bigint;
    const tokens = (balance * BigInt(Math.round(uniform(POOL_SHARE_MIN_PCT, POOL_SHARE_MAX_PCT)))) / 100n;
    await send(erc20, 'approve', [deps.uniswap.router, tokens]);
    const ethIn = ethAmount(LIQUIDITY_ETH_MIN, LIQUIDITY_ETH_MAX);
    await send(router, 'addLiquidityETH', [token, tokens, 0, 0, me, await chainDeadline()], ethIn);
    const pair = getAddress((await v2Factory.getFunction('getPair')(token, deps.uniswap.weth)) as string);
    if (pair === ZeroAddress) throw new Error(`no pair for ${token} after addLiquidityETH`);
    if (buy) {
      // The fee-on-transfer variant also works for taxed tokens.
      await send(
        router,
        'swapExactETHForTokensSupportingFeeOnTransferTokens',
        [0, [deps.uniswap.weth, token], me, await chainDeadline()],
        ethAmount(BUY_ETH_MIN, BUY_ETH_MAX),
      );
    }
    return pair;
  }

  async function launch(kindArg: TokenKind | undefined, opts: LaunchOptions): Promise<LaunchedToken> {
    const kind = kindArg ?? pickKind();
    try {
      await ensureFunds();
      const id = randomIdentity();
      const { address, txHash } = await deployKind(kind, id);
      const token: LaunchedToken =
        kind === 'not-a-token' ? { kind, address, txHash } : { kind, address, txHash, name: id.name, symbol: id.symbol };
      const withLiquidity = kind !== 'not-a-token' && (opts.liquidity ?? (kind === 'honeypot' || chance(LIQUIDITY_PROBABILITY)));
      if (withLiquidity) token.pair = await addLiquidity(kind, address, opts.buy ?? chance(BUY_PROBABILITY));
      if (kind === 'fake-renounce') {
        // owner() becomes zero; the hidden admin keeps its mint right.
        await call(address, loadArtifact('FakeRenounceToken').abi, 'renounceOwnership', []);
      }
      launched += 1;
      log.info({ ...token, launched }, 'demo launcher: token launched');
      deps.onLaunch?.(token);
      return token;
    } catch (err) {
      // A send that failed before reaching the node (e.g. gas estimation) still consumed a
      // nonce in the manager; resynchronise with the chain.
      signer.reset();
      throw err;
    }
  }

  function launchOne(kind?: TokenKind, opts: LaunchOptions = {}): Promise<LaunchedToken> {
    if (stopped) return Promise.reject(new Error('demo launcher is stopped'));
    if (kind !== undefined && !(kind in TOKEN_KIND_WEIGHTS)) return Promise.reject(new Error(`unknown token kind ${kind}`));
    const result = queue.then(() => launch(kind, opts));
    queue = result.catch(() => undefined);
    return result;
  }

  function schedule(delay: number): void {
    if (!running) return;
    timer = setTimeout(() => {
      timer = undefined;
      inFlight = launchOne()
        .catch((err: unknown) => log.error({ err }, 'demo launcher: launch failed'))
        .finally(() => schedule(intervalMs));
    }, delay);
  }

  return {
    start() {
      if (running || stopped) return;
      running = true;
      log.info({ account: me, intervalMs }, 'demo launcher: started');
      schedule(0);
    },
    async stop() {
      running = false;
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      await inFlight;
      await queue;
      provider.destroy();
      log.info({ launched }, 'demo launcher: stopped');
    },
    launchOne,
  };
}

function kindArtifact(kind: TokenKind): ContractName {
  switch (kind) {
    case 'simple':
    case 'factory-create':
    case 'factory-create2':
      return 'SimpleToken';
    case 'mintable':
      return 'MintableToken';
    case 'blacklist':
      return 'BlacklistToken';
    case 'tax':
      return 'TaxToken';
    case 'honeypot':
      return 'HoneypotToken';
    case 'pausable':
      return 'PausableToken';
    case 'max-tx':
      return 'MaxTxToken';
    case 'fake-renounce':
      return 'FakeRenounceToken';
    case 'bytes32':
      return 'Bytes32Token';
    case 'proxy':
    case 'clone':
      return 'UpgradeableToken';
    case 'not-a-token':
      return 'NotAToken';
  }
}
