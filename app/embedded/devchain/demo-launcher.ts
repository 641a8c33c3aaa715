// Demo token launcher for the embedded dev chain: keeps deploying a realistic mix of tokens
// (mostly honest, plus the usual scam patterns, proxies and factory-made tokens) and adds
// Uniswap V2 liquidity to most of them, so that every monitor feature sees live data.
import {
  Contract,
  encodeBytes32String,
  getAddress,
  hexlify,
  Interface,
  parseEther,
  randomBytes,
  type TransactionReceipt,
  Wallet,
  ZeroAddress,
} from 'ethers';
import { type Logger, pino } from 'pino';
import { loadArtifact, uniswapArtifact } from '../../../contracts/artifacts.ts';
import { type ChainWriter, createChainWriter } from './demo-chain.ts';
import {
  createRandomMix,
  kindArtifact,
  LOOKALIKE_IDENTITY,
  PAIR_AWARE_KINDS,
  type RandomMix,
  TOKEN_KIND_WEIGHTS,
  type TokenIdentity,
  type TokenKind,
} from './demo-tokens.ts';
import { launchIntoV4, V4_VENUES, type V4Launch, type V4Venue } from './demo-v4.ts';
import type { UniswapV4Deployment } from './uniswap-v4.ts';

export { TOKEN_KIND_WEIGHTS, TOKEN_KINDS, type TokenKind } from './demo-tokens.ts';

const DEFAULT_INTERVAL_MS = 12_000;
// Probability that an ERC-20 launch gets a V2 pair with liquidity (honeypots always do:
// without liquidity there is nothing to trap), and that a pooled token also gets a buy.
const LIQUIDITY_PROBABILITY = 0.8;
// With Uniswap V4 deployed, this share of the pooled tokens whose rules do not need a V2 pair
// launch into a V4 pool instead (no hook, a fee hook, or a hook that lets only the creator sell).
const V4_PROBABILITY = 0.3;
const BUY_PROBABILITY = 0.35;
const LIQUIDITY_ETH_MIN = 0.2;
const LIQUIDITY_ETH_MAX = 4;
const BUY_ETH_MIN = 0.01;
const BUY_ETH_MAX = 0.2;
// The early-trap kind: blocks after the first liquidity whose buyers are trapped, and how many
// fresh wallets buy in them (each funded by the launcher first).
const EARLY_TRAP_BLOCKS = 12;
const EARLY_BUYERS = 3;
const EARLY_BUYER_FUNDS = parseEther('1');
const EARLY_BUY = parseEther('0.05');
// Explicit gas for a fresh wallet's swap: estimates can miss the pair's accumulator writes.
const SWAP_GAS_LIMIT = 500_000n;
// Share of the supply put into the pool, in percent.
const POOL_SHARE_MIN_PCT = 30;
const POOL_SHARE_MAX_PCT = 95;

export interface LaunchedToken {
  kind: TokenKind;
  /** The deployed contract (for proxies and clones: the proxy). */
  address: string;
  /** The transaction that created it (for factory kinds, the factory call). */
  txHash: string;
  /** Uniswap V2 pair with liquidity, when one was created. */
  pair?: string;
  /** The Uniswap V4 pool it was launched into instead, and its hook. */
  v4?: V4Launch;
  name?: string;
  symbol?: string;
  /** The early-trap kind: the wallets that bought in its first blocks (trapped). */
  buyers?: string[];
}

export interface LaunchOptions {
  /** Force adding (or skipping) liquidity; default random. Ignored for not-a-token. */
  liquidity?: boolean;
  /** Force a small buy after liquidity; default random. */
  buy?: boolean;
  /** Force the pool: a V2 pair or one of the V4 pools (needs `v4`); default random. */
  venue?: 'v2' | V4Venue;
}

export interface DemoLauncherDeps {
  rpcUrl: string;
  privateKey: string;
  uniswap: { weth: string; factory: string; router: string };
  /** Uniswap V4 core: with it, some tokens launch into V4 pools. */
  v4?: UniswapV4Deployment;
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

/** What a launch works with: the account, the random mix, Uniswap and the shared contracts. */
interface LaunchContext {
  writer: ChainWriter;
  mix: RandomMix;
  uniswap: DemoLauncherDeps['uniswap'];
  router: Contract;
  v2Factory: Contract;
  tokenFactoryIface: Interface;
  upgradeableIface: Interface;
  v4?: UniswapV4Deployment;
  /** The token factory and the upgradeable implementation, deployed on first use. */
  shared(): Promise<SharedContracts>;
}

/** Deploys the contracts factory, proxy and clone launches share: once, again after a failure. */
function sharedContractsOnce(writer: ChainWriter, log: Logger): () => Promise<SharedContracts> {
  let shared: Promise<SharedContracts> | undefined;
  return () => {
    shared ??= (async () => {
      const tokenFactory = (await writer.deploy('TokenFactory', [])).address;
      const upgradeableImpl = (await writer.deploy('UpgradeableToken', [])).address;
      log.info({ tokenFactory, upgradeableImpl }, 'demo launcher: shared contracts deployed');
      return { tokenFactory, upgradeableImpl };
    })().catch((err: unknown) => {
      shared = undefined; // retry next time
      throw err;
    });
    return shared;
  };
}

function createLaunchContext(deps: DemoLauncherDeps, log: Logger): LaunchContext {
  const writer = createChainWriter(deps.rpcUrl, deps.privateKey, log);
  return {
    writer,
    mix: createRandomMix(deps.random ?? Math.random),
    uniswap: deps.uniswap,
    router: new Contract(
      deps.uniswap.router,
      uniswapArtifact('UniswapV2Router02').abi,
      writer.signer,
    ),
    v2Factory: new Contract(
      deps.uniswap.factory,
      uniswapArtifact('UniswapV2Factory').abi,
      writer.signer,
    ),
    tokenFactoryIface: new Interface(loadArtifact('TokenFactory').abi),
    upgradeableIface: new Interface(loadArtifact('UpgradeableToken').abi),
    v4: deps.v4,
    shared: sharedContractsOnce(writer, log),
  };
}

/** The token a TokenFactory call created, from its TokenCreated event. */
function createdByFactory(ctx: LaunchContext, receipt: TransactionReceipt): string {
  for (const entry of receipt.logs) {
    if (getAddress(entry.address) !== getAddress(receipt.to ?? ZeroAddress)) continue;
    const parsed = ctx.tokenFactoryIface.parseLog(entry);
    if (parsed?.name === 'TokenCreated') return getAddress(parsed.args.getValue('token') as string);
  }
  throw new Error(`no TokenCreated event in ${receipt.hash}`);
}

/** The initialize() call that makes an UpgradeableToken behind a proxy or clone. */
function initializeCall(ctx: LaunchContext, { name, symbol, supply }: TokenIdentity): string {
  return ctx.upgradeableIface.encodeFunctionData('initialize', [
    name,
    symbol,
    supply,
    ctx.writer.me,
  ]);
}

/** A token made by the shared TokenFactory: CREATE, CREATE2 or a minimal-proxy clone. */
async function deployViaFactory(
  ctx: LaunchContext,
  kind: 'factory-create' | 'factory-create2' | 'clone',
  id: TokenIdentity,
): Promise<{ address: string; txHash: string }> {
  const { name, symbol, supply } = id;
  const { tokenFactory, upgradeableImpl } = await ctx.shared();
  const abi = loadArtifact('TokenFactory').abi;
  const receipt =
    kind === 'factory-create'
      ? await ctx.writer.call(tokenFactory, abi, 'createToken', [name, symbol, supply])
      : kind === 'factory-create2'
        ? await ctx.writer.call(tokenFactory, abi, 'createToken2', [
            name,
            symbol,
            supply,
            hexlify(randomBytes(32)),
          ])
        : await ctx.writer.call(tokenFactory, abi, 'cloneTokenAndCall', [
            upgradeableImpl,
            initializeCall(ctx, id),
          ]);
  return { address: createdByFactory(ctx, receipt), txHash: receipt.hash };
}

async function deployKind(ctx: LaunchContext, kind: TokenKind, id: TokenIdentity) {
  const { name, symbol, supply } = id;
  const { deploy } = ctx.writer;
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
      const buyBps = Math.round(ctx.mix.uniform(0, 1_000));
      const sellBps = ctx.mix.chance(0.2)
        ? Math.round(ctx.mix.uniform(3_000, 9_900))
        : Math.round(ctx.mix.uniform(0, 1_500));
      return deploy('TaxToken', [name, symbol, supply, buyBps, sellBps]);
    }
    case 'max-tx':
      return deploy('MaxTxToken', [name, symbol, supply, supply / 100n, (supply * 2n) / 100n]);
    case 'look-alike':
      return deploy('SimpleToken', [LOOKALIKE_IDENTITY.name, LOOKALIKE_IDENTITY.symbol, supply]);
    case 'early-trap':
      return deploy('EarlyTrapToken', [name, symbol, supply, EARLY_TRAP_BLOCKS]);
    case 'bytes32':
      return deploy('Bytes32Token', [
        encodeBytes32String(name),
        encodeBytes32String(symbol),
        supply,
      ]);
    case 'proxy': {
      const { upgradeableImpl } = await ctx.shared();
      return deploy('TokenProxy', [upgradeableImpl, initializeCall(ctx, id)]);
    }
    case 'factory-create':
    case 'factory-create2':
    case 'clone':
      return deployViaFactory(ctx, kind, id);
    case 'not-a-token': {
      const deployed = await deploy('NotAToken', []);
      await ctx.writer.call(deployed.address, loadArtifact('NotAToken').abi, 'setValue', [
        encodeBytes32String('greeting'),
        `hello from ${name}`,
      ]);
      return deployed;
    }
  }
}

/** Pools part of the supply with ETH on Uniswap V2 (and maybe buys some); answers the pair. */
async function addLiquidity(
  ctx: LaunchContext,
  kind: TokenKind,
  token: string,
  buy: boolean,
): Promise<string> {
  const { writer, mix, router, v2Factory, uniswap } = ctx;
  const { send, me } = writer;
  const erc20 = new Contract(token, loadArtifact(kindArtifact(kind)).abi, writer.signer);
  const getPair = async () =>
    (await v2Factory.getFunction('getPair')(token, uniswap.weth)) as string;
  if (PAIR_AWARE_KINDS.has(kind)) {
    // Create the pair first so the token knows it before the first transfer into it.
    await send(v2Factory, 'createPair', [token, uniswap.weth]);
    await send(erc20, 'setPair', [await getPair()]);
  }
  const balance = (await erc20.getFunction('balanceOf')(me)) as bigint;
  const share = BigInt(Math.round(mix.uniform(POOL_SHARE_MIN_PCT, POOL_SHARE_MAX_PCT)));
  const tokens = (balance * share) / 100n;
  await send(erc20, 'approve', [uniswap.router, tokens]);
  const ethIn = mix.ethAmount(LIQUIDITY_ETH_MIN, LIQUIDITY_ETH_MAX);
  const deadline = await writer.chainDeadline();
  await send(router, 'addLiquidityETH', [token, tokens, 0, 0, me, deadline], ethIn);
  const pair = getAddress(await getPair());
  if (pair === ZeroAddress) throw new Error(`no pair for ${token} after addLiquidityETH`);
  if (buy) {
    // The fee-on-transfer variant also works for taxed tokens.
    await send(
      router,
      'swapExactETHForTokensSupportingFeeOnTransferTokens',
      [0, [uniswap.weth, token], me, await writer.chainDeadline()],
      mix.ethAmount(BUY_ETH_MIN, BUY_ETH_MAX),
    );
  }
  return pair;
}

/** Fresh wallets, funded by the launcher, that each buy the token once. */
async function freshBuyers(ctx: LaunchContext, token: string, count: number): Promise<string[]> {
  const { writer, uniswap } = ctx;
  const buyers: string[] = [];
  for (let i = 0; i < count; i++) {
    const wallet = Wallet.createRandom().connect(writer.provider);
    const funding = await writer.signer.sendTransaction({
      to: wallet.address,
      value: EARLY_BUYER_FUNDS,
    });
    await funding.wait();
    const router = new Contract(uniswap.router, ctx.router.interface, wallet);
    const swap = await router.getFunction('swapExactETHForTokensSupportingFeeOnTransferTokens')(
      0,
      [uniswap.weth, token],
      wallet.address,
      await writer.chainDeadline(),
      { value: EARLY_BUY, gasLimit: SWAP_GAS_LIMIT },
    );
    await swap.wait();
    buyers.push(wallet.address);
  }
  return buyers;
}

/** The V4 pool a launch goes to, or null for a V2 pair (no V4, or a kind that needs its pair). */
function v4VenueOf(ctx: LaunchContext, kind: TokenKind, opts: LaunchOptions): V4Venue | null {
  if (!ctx.v4 || PAIR_AWARE_KINDS.has(kind) || opts.venue === 'v2') return null;
  if (opts.venue) return opts.venue;
  if (!ctx.mix.chance(V4_PROBABILITY)) return null;
  return V4_VENUES[
    Math.min(V4_VENUES.length - 1, Math.floor(ctx.mix.uniform(0, V4_VENUES.length)))
  ]!;
}

/** Pools part of the supply with ETH in a V4 pool of `venue` (and maybe buys some). */
async function poolInV4(
  ctx: LaunchContext,
  kind: TokenKind,
  token: string,
  venue: V4Venue,
  buy: boolean,
): Promise<V4Launch> {
  const { writer, mix } = ctx;
  const erc20 = new Contract(token, loadArtifact(kindArtifact(kind)).abi, writer.signer);
  const balance = (await erc20.getFunction('balanceOf')(writer.me)) as bigint;
  const share = BigInt(Math.round(mix.uniform(POOL_SHARE_MIN_PCT, POOL_SHARE_MAX_PCT)));
  return launchIntoV4(writer.signer, ctx.v4!, {
    token,
    venue,
    eth: mix.ethAmount(LIQUIDITY_ETH_MIN, LIQUIDITY_ETH_MAX),
    tokens: (balance * share) / 100n,
    buyEth: buy ? mix.ethAmount(BUY_ETH_MIN, BUY_ETH_MAX) : null,
  });
}

/** Deploys one token of `kind`, pools it unless told otherwise, and finishes the kind's setup. */
async function launchToken(
  ctx: LaunchContext,
  kind: TokenKind,
  opts: LaunchOptions,
): Promise<LaunchedToken> {
  const { mix, writer } = ctx;
  await writer.ensureFunds();
  const drawn = mix.identity();
  const id = kind === 'look-alike' ? { ...drawn, ...LOOKALIKE_IDENTITY } : drawn;
  const { address, txHash } = await deployKind(ctx, kind, id);
  const token: LaunchedToken =
    kind === 'not-a-token'
      ? { kind, address, txHash }
      : { kind, address, txHash, name: id.name, symbol: id.symbol };
  // Traps need liquidity (and the early trap its early buyers): without them nothing is trapped.
  const trap = kind === 'honeypot' || kind === 'early-trap';
  const withLiquidity =
    kind !== 'not-a-token' && (opts.liquidity ?? (trap || mix.chance(LIQUIDITY_PROBABILITY)));
  if (withLiquidity) {
    const buy = opts.buy ?? mix.chance(BUY_PROBABILITY);
    const venue = v4VenueOf(ctx, kind, opts);
    if (venue) token.v4 = await poolInV4(ctx, kind, address, venue, buy);
    else token.pair = await addLiquidity(ctx, kind, address, buy);
    if (kind === 'early-trap') token.buyers = await freshBuyers(ctx, address, EARLY_BUYERS);
  }
  if (kind === 'fake-renounce') {
    // owner() becomes zero; the hidden admin keeps its mint right.
    await writer.call(address, loadArtifact('FakeRenounceToken').abi, 'renounceOwnership', []);
  }
  return token;
}

export function createDemoLauncher(deps: DemoLauncherDeps): DemoLauncher {
  const intervalMs = deps.intervalMs ?? DEFAULT_INTERVAL_MS;
  const log = deps.logger ?? pino({ level: 'silent' });
  const ctx = createLaunchContext(deps, log);
  const { me } = ctx.writer;
  // Launches run one at a time (loop ticks and direct launchOne calls alike), so the nonce
  // manager can be reset after a failure without disturbing a concurrent launch.
  let queue: Promise<unknown> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  let running = false;
  let stopped = false;
  let inFlight: Promise<unknown> = Promise.resolve();
  let launched = 0;

  async function launch(
    kindArg: TokenKind | undefined,
    opts: LaunchOptions,
  ): Promise<LaunchedToken> {
    const kind = kindArg ?? ctx.mix.kind();
    try {
      const token = await launchToken(ctx, kind, opts);
      launched += 1;
      log.info({ ...token, launched }, 'demo launcher: token launched');
      deps.onLaunch?.(token);
      return token;
    } catch (err) {
      // A send that failed before reaching the node (e.g. gas estimation) still consumed a
      // nonce in the manager; resynchronise with the chain.
      ctx.writer.signer.reset();
      throw err;
    }
  }

  function launchOne(kind?: TokenKind, opts: LaunchOptions = {}): Promise<LaunchedToken> {
    if (stopped) return Promise.reject(new Error('demo launcher is stopped'));
    if (kind !== undefined && !(kind in TOKEN_KIND_WEIGHTS)) {
      return Promise.reject(new Error(`unknown token kind ${kind}`));
    }
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
      ctx.writer.provider.destroy();
      log.info({ launched }, 'demo launcher: stopped');
    },
    launchOne,
  };
}
