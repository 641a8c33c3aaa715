// Deploys Uniswap V4 core onto a dev or test chain from @uniswap/v4-core's own build artifacts
// (PoolManager, and its PoolSwapTest and PoolModifyLiquidityTest routers), deploys hooks at
// CREATE2 addresses whose low 14 bits are their permissions (salt mining, as v4-periphery's
// HookMiner does), and initializes pools, adds liquidity and swaps through the routers.
import {
  Contract,
  ContractFactory,
  concat,
  getBytes,
  hexlify,
  type InterfaceAbi,
  keccak256,
  type Provider,
  type Signer,
} from 'ethers';
import {
  type ContractName,
  loadArtifact,
  type UniswapContractName,
  uniswapArtifact,
} from '../../../contracts/artifacts.ts';
import { ALL_HOOK_MASK, NO_HOOK, poolId, type V4PoolKey } from '../../../src/dex/v4/index.ts';

/** The deterministic CREATE2 deployer (Arachnid's) that Anvil and most chains have at this address. */
export const CREATE2_DEPLOYER = '0x4e59b44847b379578588920ca78fbf26c0b4956c';
/** Salts tried before giving up: a given 14-bit pattern turns up once in 16 384 tries on average. */
const MAX_SALT_TRIES = 1_000_000;
/** Salts tried between two returns to the event loop (about 0.1 s of hashing). */
const SALT_SLICE = 2_048;
const RECEIPT_POLL_MS = 20;
const RECEIPT_TIMEOUT_MS = 60_000;
/** TickMath.MIN_TICK / MAX_TICK. */
const MIN_TICK = -887272;
const MAX_TICK = 887272;
export const MIN_PRICE_LIMIT = 4295128740n;
export const MAX_PRICE_LIMIT = 1461446703485210103287273052203988822378723970341n;

export interface UniswapV4Deployment {
  poolManager: string;
  /** v4-core's PoolSwapTest: swaps for the caller, paying from its approvals or msg.value. */
  swapRouter: string;
  /** v4-core's PoolModifyLiquidityTest: adds and removes liquidity for the caller. */
  liquidityRouter: string;
}

const lower = (a: string) => a.toLowerCase();

/** Waits for a transaction by polling its receipt (ethers' wait() can stall on an automining Anvil). */
async function mined(signer: Signer, tx: Promise<{ hash: string }> | { hash: string }) {
  const { hash } = await tx;
  const provider = signer.provider as Provider;
  const deadline = Date.now() + RECEIPT_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const receipt = await provider.getTransactionReceipt(hash);
    if (receipt) {
      if (receipt.status !== 1) throw new Error(`transaction ${hash} reverted`);
      return receipt;
    }
    await new Promise((r) => setTimeout(r, RECEIPT_POLL_MS));
  }
  throw new Error(`transaction ${hash} not mined within ${RECEIPT_TIMEOUT_MS} ms`);
}

async function deployV4(signer: Signer, name: UniswapContractName, args: unknown[]) {
  const a = uniswapArtifact(name);
  const contract = await new ContractFactory(a.abi, a.bytecode, signer).deploy(...args);
  await mined(signer, contract.deploymentTransaction()!);
  return lower(await contract.getAddress());
}

/** PoolManager (owned by the signer, which may set protocol fees) and the two v4-core routers. */
export async function deployUniswapV4(signer: Signer): Promise<UniswapV4Deployment> {
  const owner = await signer.getAddress();
  const poolManager = await deployV4(signer, 'PoolManager', [owner]);
  const swapRouter = await deployV4(signer, 'PoolSwapTest', [poolManager]);
  const liquidityRouter = await deployV4(signer, 'PoolModifyLiquidityTest', [poolManager]);
  return { poolManager, swapRouter, liquidityRouter };
}

/** The CREATE2 preimage 0xff . deployer . salt . keccak256(initCode), salt's last four bytes varied in place. */
function preimageOf(initCode: string, deployer: string): Uint8Array {
  const preimage = new Uint8Array(85);
  preimage[0] = 0xff;
  preimage.set(getBytes(deployer), 1);
  preimage.set(getBytes(keccak256(initCode)), 53);
  return preimage;
}

/** Tries salts `from` to `to` (exclusive): hashing bytes, not hex, makes ~20 000 tries a second. */
function searchSalts(preimage: Uint8Array, flags: number, from: number, to: number) {
  for (let i = from; i < to; i++) {
    preimage.set([i >>> 24, (i >>> 16) & 0xff, (i >>> 8) & 0xff, i & 0xff], 49);
    const hash = keccak256(preimage);
    if ((Number.parseInt(hash.slice(-4), 16) & ALL_HOOK_MASK) !== flags) continue;
    return { salt: hexlify(preimage.slice(21, 53)), address: lower(`0x${hash.slice(-40)}`) };
  }
  return null;
}

const noSalt = (flags: number) =>
  new Error(`no salt within ${MAX_SALT_TRIES} tries gives hook flags 0x${flags.toString(16)}`);

/**
 * The first salt at which `deployer` CREATE2-deploys `initCode` to an address whose low 14 bits
 * are exactly `flags` (HookMiner's search).
 */
export function mineHookSalt(
  initCode: string,
  flags: number,
  deployer = CREATE2_DEPLOYER,
): { salt: string; address: string } {
  const found = searchSalts(preimageOf(initCode, deployer), flags, 0, MAX_SALT_TRIES);
  if (!found) throw noSalt(flags);
  return found;
}

/**
 * mineHookSalt in slices that give the event loop back between them: the embedded stack's demo
 * launcher mines in the service's own process, whose API and WebSocket must not stall for it.
 */
async function mineHookSaltYielding(initCode: string, flags: number) {
  const preimage = preimageOf(initCode, CREATE2_DEPLOYER);
  for (let from = 0; from < MAX_SALT_TRIES; from += SALT_SLICE) {
    const found = searchSalts(preimage, flags, from, Math.min(from + SALT_SLICE, MAX_SALT_TRIES));
    if (found) return found;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw noSalt(flags);
}

/** Salts found, by init code and flags: a hook deployed again (same code, same arguments) is not mined again. */
const minedSalts = new Map<string, Promise<{ salt: string; address: string }>>();

/** Deploys contract `name` with `args` through the CREATE2 deployer at an address with `flags`. */
export async function deployHook(
  signer: Signer,
  name: ContractName,
  args: unknown[],
  flags: number,
): Promise<string> {
  const artifact = loadArtifact(name);
  const factory = new ContractFactory(artifact.abi as InterfaceAbi, artifact.bytecode);
  const initCode = (await factory.getDeployTransaction(...args)).data;
  const key = `${keccak256(initCode)}:${flags}`;
  let mining = minedSalts.get(key);
  if (!mining) {
    mining = mineHookSaltYielding(initCode, flags);
    minedSalts.set(key, mining);
    mining.catch(() => minedSalts.delete(key));
  }
  const { salt, address } = await mining;
  const provider = signer.provider as Provider;
  if ((await provider.getCode(address)) === '0x')
    await mined(
      signer,
      signer.sendTransaction({ to: CREATE2_DEPLOYER, data: concat([salt, initCode]) }),
    );
  if ((await provider.getCode(address)) === '0x')
    throw new Error(`hook ${name} not deployed at ${address}`);
  return address;
}

/** The pool key of two currencies, sorted as the PoolManager wants them. */
export function poolKeyOf(
  a: string,
  b: string,
  fee: number,
  tickSpacing: number,
  hooks: string = NO_HOOK,
): V4PoolKey {
  const [currency0, currency1] = BigInt(a) < BigInt(b) ? [a, b] : [b, a];
  return {
    currency0: lower(currency0),
    currency1: lower(currency1),
    fee,
    tickSpacing,
    hooks: lower(hooks),
  };
}

const keyTuple = (k: V4PoolKey) => [k.currency0, k.currency1, k.fee, k.tickSpacing, k.hooks];

function bigintSqrt(n: bigint): bigint {
  if (n < 2n) return n;
  let x = BigInt(Math.floor(Math.sqrt(Number(n))));
  for (;;) {
    const y = (x + n / x) >> 1n;
    if (y >= x && x * x <= n && (x + 1n) * (x + 1n) > n) return x;
    x = y;
  }
}

/** sqrtPriceX96 of `amount1 / amount0` (raw units): the price a pool starts at. */
export function sqrtPriceX96Of(amount0: bigint, amount1: bigint): bigint {
  return bigintSqrt((amount1 << 192n) / amount0);
}

/** The liquidity of a full-range position holding about `amount0` and `amount1` at their price. */
export const fullRangeLiquidity = (amount0: bigint, amount1: bigint): bigint =>
  bigintSqrt(amount0 * amount1);

/** The widest ticks a pool of `tickSpacing` accepts. */
export function fullRangeTicks(tickSpacing: number): { lower: number; upper: number } {
  return {
    lower: Math.ceil(MIN_TICK / tickSpacing) * tickSpacing,
    upper: Math.floor(MAX_TICK / tickSpacing) * tickSpacing,
  };
}

const pm = (signer: Signer, address: string) =>
  new Contract(address, uniswapArtifact('PoolManager').abi, signer);

/** Initializes the pool of `key` at `sqrtPriceX96`; returns its id and the block it happened in. */
export async function initializePool(
  signer: Signer,
  v4: UniswapV4Deployment,
  key: V4PoolKey,
  sqrtPriceX96: bigint,
): Promise<{ id: string; blockNumber: number }> {
  const receipt = await mined(
    signer,
    pm(signer, v4.poolManager).getFunction('initialize')(keyTuple(key), sqrtPriceX96),
  );
  return { id: poolId(key), blockNumber: receipt.blockNumber };
}

const erc20 = (signer: Signer, token: string) =>
  new Contract(
    token,
    [
      'function approve(address,uint256) returns (bool)',
      'function balanceOf(address) view returns (uint256)',
    ],
    signer,
  );

/** Approves `spender` for every non-native currency of `key`, unlimited. */
async function approveCurrencies(signer: Signer, key: V4PoolKey, spender: string) {
  for (const c of [key.currency0, key.currency1]) {
    if (BigInt(c) === 0n) continue;
    await mined(signer, erc20(signer, c).getFunction('approve')(spender, (1n << 256n) - 1n));
  }
}

/**
 * Adds full-range liquidity `liquidity` to the pool of `key` through PoolModifyLiquidityTest,
 * paying native currency from `maxNative` (the router refunds the rest).
 */
export async function addLiquidityV4(
  signer: Signer,
  v4: UniswapV4Deployment,
  key: V4PoolKey,
  liquidity: bigint,
  maxNative = 0n,
): Promise<{ blockNumber: number }> {
  await approveCurrencies(signer, key, v4.liquidityRouter);
  const router = new Contract(
    v4.liquidityRouter,
    uniswapArtifact('PoolModifyLiquidityTest').abi,
    signer,
  );
  const ticks = fullRangeTicks(key.tickSpacing);
  const params = [ticks.lower, ticks.upper, liquidity, `0x${'0'.repeat(64)}`];
  const modify = router.getFunction(
    'modifyLiquidity((address,address,uint24,int24,address),(int24,int24,int256,bytes32),bytes)',
  );
  const receipt = await mined(signer, modify(keyTuple(key), params, '0x', { value: maxNative }));
  return { blockNumber: receipt.blockNumber };
}

/**
 * An exact-input swap of `amountIn` through PoolSwapTest (`zeroForOne`: currency0 in); native
 * input is sent as value. Returns the block it was mined in.
 */
export async function swapV4(
  signer: Signer,
  v4: UniswapV4Deployment,
  key: V4PoolKey,
  zeroForOne: boolean,
  amountIn: bigint,
  hookData = '0x',
): Promise<{ blockNumber: number; hash: string }> {
  await approveCurrencies(signer, key, v4.swapRouter);
  const router = new Contract(v4.swapRouter, uniswapArtifact('PoolSwapTest').abi, signer);
  const input = zeroForOne ? key.currency0 : key.currency1;
  const receipt = await mined(
    signer,
    router.getFunction('swap')(
      keyTuple(key),
      [zeroForOne, -amountIn, zeroForOne ? MIN_PRICE_LIMIT : MAX_PRICE_LIMIT],
      [false, false],
      hookData,
      { value: BigInt(input) === 0n ? amountIn : 0n },
    ),
  );
  return { blockNumber: receipt.blockNumber, hash: receipt.hash };
}
