import { AbiCoder, Interface, MaxUint256 } from 'ethers';
import { loadArtifact, uniswapArtifact } from '../../contracts/artifacts.ts';
import { type ChainProfile, creationsPerBlock, type TxKind } from './profiles.ts';

/**
 * What goes into one block of a loaded chain: a pure, seeded plan (the same seed gives the same
 * blocks), so that the shape of the load can be tested without a node. Transactions are
 * eth_sendTransaction requests from impersonated senders (load.ts): the node fills in nonces and
 * fees and signs nothing, which keeps the load generator's own CPU off the measurement.
 */

/** Gas each kind may use (explicit: no estimation, which would run every transaction twice). */
export const GAS: Record<TxKind, bigint> = {
  'native-transfer': 21_000n,
  'token-transfer': 80_000n,
  'v2-swap': 250_000n,
  'v3-swap': 400_000n,
  'token-deploy': 2_500_000n,
  'factory-token': 3_000_000n,
  'contract-deploy': 2_000_000n,
};

/** V3's price limits just inside its bounds: a swap that crosses every tick stops there. */
const MIN_SQRT_RATIO_PLUS_ONE = 4_295_128_740n;
const MAX_SQRT_RATIO_MINUS_ONE = 1_461_446_703_485_210_103_287_273_052_203_988_822_378_723_970_341n;
const SWAP_WEI = 10n ** 14n;
const TRANSFER_UNITS = 10n ** 18n;
const TOKEN_SUPPLY = 10n ** 27n;
const DEADLINE = 4_000_000_000n;
/** Mixed into the seed of the payees' own stream, so that the pool changes nothing else of a plan. */
const PAYEE_SEED = 0x9e3779b9;

/** The contracts a loaded chain has before its load starts (load.ts deploys them). */
export interface ChainContracts {
  weth: string;
  /** The factories whose pools the service is told about (its `dexes`). */
  v2Factory: string;
  v3Factory: string;
  v2Router: string;
  v3Helper: string;
  v3Pool: string;
  /** Whether WETH is the V3 pool's token0 (the swap direction pays WETH). */
  wethIsToken0: boolean;
  /** The token transferred and swapped (it has the V2 pair and the V3 pool). */
  established: string;
  tokenFactory: string;
  upgradeableImpl: string;
  /** Impersonated senders, funded with native currency, WETH and the established token. */
  senders: readonly string[];
}

export interface PlannedTx {
  kind: TxKind;
  from: string;
  /** Absent: a contract creation. */
  to?: string;
  data: string;
  value: bigint;
  gas: bigint;
}

export interface LoadScale {
  /** Fraction of the real chain's transactions per block sent (1: full size). */
  txScale: number;
  /**
   * At least this many tokens a minute, whatever the real chain's rate: a short run must see
   * enough tokens on every chain to time their detection (Ethereum has 5 blocks a minute).
   */
  tokenFloorPerMinute: number;
  /**
   * Payments (native and ERC-20 transfers) go to this many recurring payees, picked at random.
   * Absent: every payment to a fresh address. A long run needs the pool: Anvil rebuilds its
   * whole state trie and copies its state at every block, so with a new account (or token
   * balance) per payment its mining slowed with every block (docs/scale.md, "Catching up").
   */
  payees?: number;
}

const iface = (abi: unknown) => new Interface(abi as ConstructorParameters<typeof Interface>[0]);
const erc20 = iface(loadArtifact('SimpleToken').abi);
const router = iface(uniswapArtifact('UniswapV2Router02').abi);
const helper = iface(loadArtifact('V3PoolHelper').abi);
const factory = iface(loadArtifact('TokenFactory').abi);
const upgradeable = iface(loadArtifact('UpgradeableToken').abi);
const coder = AbiCoder.defaultAbiCoder();

/** Deterministic pseudo-random numbers in [0, 1) (mulberry32). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** `bytes` random bytes as 0x-hex, four at a time (the planner runs hundreds per second). */
const hexOf = (random: () => number, bytes: number) => {
  let hex = '';
  while (hex.length < bytes * 2)
    hex += Math.floor(random() * 4_294_967_296)
      .toString(16)
      .padStart(8, '0');
  return `0x${hex.slice(0, bytes * 2)}`;
};

const word = (hex: string) => hex.replace(/^0x/, '').padStart(64, '0');
/** transfer(address,uint256), encoded by hand: ethers' encoder costs more than the node's work. */
const TRANSFER_SELECTOR = erc20.getFunction('transfer')!.selector;
const transferData = (to: string) =>
  `${TRANSFER_SELECTOR}${word(to)}${word(TRANSFER_UNITS.toString(16))}`;

const CREATION_CODE = {
  SimpleToken: loadArtifact('SimpleToken'),
  NotAToken: loadArtifact('NotAToken'),
  StakingPool: loadArtifact('StakingPool'),
};
const CONSTRUCTORS = {
  SimpleToken: iface(CREATION_CODE.SimpleToken.abi).deploy,
  NotAToken: iface(CREATION_CODE.NotAToken.abi).deploy,
  StakingPool: iface(CREATION_CODE.StakingPool.abi).deploy,
};

/** Creation code with its constructor arguments. */
function creation(name: keyof typeof CREATION_CODE, args: unknown[]): string {
  return CREATION_CODE[name].bytecode + coder.encode(CONSTRUCTORS[name].inputs, args).slice(2);
}

/**
 * A chain's block planner: `next()` answers the transactions of its next block. Creations come
 * first at the real chain's rate (or the floor), a burst of factory tokens every
 * `burstEverySeconds`, and the rest of the block is transfers and swaps in the profile's shares.
 */
export function createBlockPlanner(
  profile: ChainProfile,
  contracts: ChainContracts,
  scale: LoadScale,
  seed = profile.chainId,
) {
  const random = seededRandom(seed);
  const real = creationsPerBlock(profile);
  const floor = (scale.tokenFloorPerMinute * profile.blockTimeMs) / 60_000;
  const tokensPerBlock = Math.max(real.tokens, floor);
  const txPerBlock = Math.max(1, Math.round(profile.txPerBlock * scale.txScale));
  let tokenCredit = 0;
  let otherCredit = 0;
  let block = 0;
  let serial = 0;
  let senderIndex = 0;
  const sender = () => contracts.senders[senderIndex++ % contracts.senders.length]!;
  // Payees from their own stream: with or without the pool, a seed plans the same kinds, senders
  // and creations.
  const payeeRandom = seededRandom(seed ^ PAYEE_SEED);
  const payees = scale.payees
    ? Array.from({ length: scale.payees }, () => hexOf(payeeRandom, 20))
    : undefined;
  const payee = () =>
    payees ? payees[Math.floor(payeeRandom() * payees.length)]! : hexOf(payeeRandom, 20);
  // The swaps' call data depends on the sender at most: encoded once.
  const v2Swaps = new Map(
    contracts.senders.map((from) => [
      from,
      router.encodeFunctionData('swapExactETHForTokens', [
        0n,
        [contracts.weth, contracts.established],
        from,
        DEADLINE,
      ]),
    ]),
  );
  const v2SwapData = (from: string) => v2Swaps.get(from)!;
  const zeroForOne = contracts.wethIsToken0;
  const v3SwapData = helper.encodeFunctionData('swap', [
    contracts.v3Pool,
    zeroForOne,
    SWAP_WEI,
    zeroForOne ? MIN_SQRT_RATIO_PLUS_ONE : MAX_SQRT_RATIO_MINUS_ONE,
  ]);

  function tx(kind: TxKind, to: string | undefined, data: string, value = 0n): PlannedTx {
    return { kind, from: sender(), ...(to ? { to } : {}), data, value, gas: GAS[kind] };
  }

  function tokenDeploy(): PlannedTx {
    serial++;
    return tx(
      'token-deploy',
      undefined,
      creation('SimpleToken', [`Load ${serial}`, `L${serial}`, TOKEN_SUPPLY]),
    );
  }

  /** CREATE, CREATE2 and initialised clones in turn: the three ways launchpads make tokens. */
  function factoryToken(): PlannedTx {
    serial++;
    const name = `Launch ${serial}`;
    const symbol = `F${serial}`;
    const from = sender();
    const data =
      serial % 3 === 0
        ? factory.encodeFunctionData('createToken', [name, symbol, TOKEN_SUPPLY])
        : serial % 3 === 1
          ? factory.encodeFunctionData('createToken2', [
              name,
              symbol,
              TOKEN_SUPPLY,
              hexOf(random, 32),
            ])
          : factory.encodeFunctionData('cloneTokenAndCall', [
              contracts.upgradeableImpl,
              upgradeable.encodeFunctionData('initialize', [name, symbol, TOKEN_SUPPLY, from]),
            ]);
    return {
      kind: 'factory-token',
      from,
      to: contracts.tokenFactory,
      data,
      value: 0n,
      gas: GAS['factory-token'],
    };
  }

  function otherDeploy(): PlannedTx {
    const data =
      random() < 0.5
        ? creation('NotAToken', [])
        : creation('StakingPool', [contracts.established, contracts.weth]);
    return tx('contract-deploy', undefined, data);
  }

  function trade(): PlannedTx {
    const { native, token, v2 } = profile.mix;
    const r = random();
    if (r < native)
      return tx('native-transfer', payee(), '0x', 1n + BigInt(Math.floor(random() * 1e9)));
    if (r < native + token)
      return tx('token-transfer', contracts.established, transferData(payee()));
    if (r < native + token + v2) {
      const from = sender();
      return {
        kind: 'v2-swap',
        from,
        to: contracts.v2Router,
        data: v2SwapData(from),
        value: SWAP_WEI,
        gas: GAS['v2-swap'],
      };
    }
    return tx('v3-swap', contracts.v3Helper, v3SwapData);
  }

  return {
    /** Transactions per block at this scale. */
    txPerBlock,
    next(): PlannedTx[] {
      const txs: PlannedTx[] = [];
      tokenCredit += tokensPerBlock;
      otherCredit += real.others;
      // A burst when this block is the first past a multiple of the burst interval.
      const seconds = (block * profile.blockTimeMs) / 1000;
      const previous = ((block - 1) * profile.blockTimeMs) / 1000;
      const burst =
        block > 0 &&
        Math.floor(seconds / profile.burstEverySeconds) >
          Math.floor(previous / profile.burstEverySeconds);
      block++;
      if (burst) for (let i = 0; i < profile.burstTokens; i++) txs.push(factoryToken());
      while (tokenCredit >= 1) {
        tokenCredit--;
        // Half deployed directly, half through the factory.
        txs.push(random() < 0.5 ? tokenDeploy() : factoryToken());
      }
      while (otherCredit >= 1) {
        otherCredit--;
        txs.push(otherDeploy());
      }
      while (txs.length < txPerBlock) txs.push(trade());
      return txs;
    },
  };
}

/** The approval every sender gives once: WETH to the V3 helper (which pulls what a swap costs). */
export const approveAll = (spender: string) =>
  erc20.encodeFunctionData('approve', [spender, MaxUint256]);
