// Compiled contract artifacts (committed JSON written by contracts/build.ts) and the
// Uniswap V2 artifacts shipped in the @uniswap npm packages. Runtime never compiles.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { InterfaceAbi } from 'ethers';

/** Every deployable contract in contracts/src; build.ts fails if this list drifts. */
export const CONTRACT_NAMES = [
  'SimpleToken',
  'MintableToken',
  'BlacklistToken',
  'TaxToken',
  'HoneypotToken',
  'PausableToken',
  'MaxTxToken',
  'FakeRenounceToken',
  'Bytes32Token',
  'TokenProxy',
  'UpgradeableToken',
  'TokenFactory',
  'NotAToken',
  'Multicall3',
  'GasBurnerToken',
  'BadTextToken',
  'LyingDecimalsToken',
  'V3PoolHelper',
  'DevStablecoin',
  // Traps the buyers of its first blocks of trading (the demo launcher's early-trap kind).
  'EarlyTrapToken',
  // Sends to many fresh addresses in one call: the holders benchmark's Transfer traffic.
  'SprayToken',
  // The trade simulator (placed by eth_call state override, never deployed) and the
  // rest of the analysis corpus.
  'TradeSimulator',
  'AdminProbe',
  'RenouncedToken',
  'FixedTaxToken',
  'TieredHoneypotToken',
  'LaunchGuardToken',
  'BalanceControlToken',
  'DisguisedMintToken',
  'DisguisedBlacklistToken',
  'DisguisedPauseToken',
  'DisguisedFeeToken',
  'DisguisedBalanceToken',
  // A staking pool: totalSupply and balanceOf without the transfer surface (not a token).
  'StakingPool',
  // A token whose surface forwards to a ledger set after deployment: every call reverts until then.
  'LedgerFrontToken',
  // Placed by state override at a contract to read many of its storage slots in one eth_call.
  'SlotReader',
  // Placed by state override at a sender to make many eth_calls from it in one eth_call.
  'CallBundle',
  // Placed by state override at a contract: reads its slots and, for any other call, runs its code.
  'SlotWindow',
  // Placed by state override at privileged callers and a test holder: runs an admin power and
  // reads its effect in one eth_call (docs/risk-model.md, "Propose, then prove").
  'PowerProver',
  // Uniswap V4 hooks of the demo and the tests (deployed at mined CREATE2 addresses: their low 14
  // bits are their permissions), and the V4 honeypot test with the switch it places at a hook.
  'FeeHook',
  'SellGateHook',
  'RevertingHook',
  'HookSwitch',
  'V4TradeSimulator',
] as const;

export type ContractName = (typeof CONTRACT_NAMES)[number];

export type UniswapContractName =
  | 'UniswapV2Factory'
  | 'UniswapV2Router02'
  | 'WETH9'
  | 'UniswapV2Pair'
  | 'UniswapV3Factory'
  | 'UniswapV3Pool'
  | 'PoolManager'
  | 'PoolSwapTest'
  | 'PoolModifyLiquidityTest';

export interface Artifact {
  abi: InterfaceAbi;
  /** Creation code, 0x-prefixed. */
  bytecode: string;
  /** Runtime code, 0x-prefixed. */
  deployedBytecode: string;
}

export interface ContractArtifact extends Artifact {
  contractName: ContractName;
}

export const ARTIFACTS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'artifacts');

// Which npm package ships each Uniswap artifact (in its build/ directory).
const UNISWAP_PACKAGE: Record<UniswapContractName, string> = {
  UniswapV2Factory: '@uniswap/v2-core',
  UniswapV2Pair: '@uniswap/v2-core',
  UniswapV2Router02: '@uniswap/v2-periphery',
  WETH9: '@uniswap/v2-periphery',
  UniswapV3Factory: '@uniswap/v3-core',
  UniswapV3Pool: '@uniswap/v3-core',
  PoolManager: '@uniswap/v4-core',
  PoolSwapTest: '@uniswap/v4-core',
  PoolModifyLiquidityTest: '@uniswap/v4-core',
};

// V3 core ships Hardhat artifacts (artifacts/contracts/<Name>.sol/<Name>.json, 0x-prefixed
// bytecode), V4 core Foundry ones (out/<Name>.sol/<Name>.json, bytecode under `object`), V2
// build/<Name>.json.
function artifactFile(pkgDir: string, name: UniswapContractName): string {
  const pkg = UNISWAP_PACKAGE[name];
  if (pkg === '@uniswap/v3-core')
    return path.join(pkgDir, 'artifacts', 'contracts', `${name}.sol`, `${name}.json`);
  if (pkg === '@uniswap/v4-core') return path.join(pkgDir, 'out', `${name}.sol`, `${name}.json`);
  return path.join(pkgDir, 'build', `${name}.json`);
}

type RawCode = string | { object?: string } | undefined;
const codeOf = (raw: RawCode): string | undefined => (typeof raw === 'string' ? raw : raw?.object);

const require = createRequire(import.meta.url);
const ownCache = new Map<ContractName, ContractArtifact>();
const uniswapCache = new Map<UniswapContractName, Artifact>();

const with0x = (hex: string): string => (hex.startsWith('0x') ? hex : `0x${hex}`);

export function loadArtifact(name: ContractName): ContractArtifact {
  const cached = ownCache.get(name);
  if (cached) return cached;
  const file = path.join(ARTIFACTS_DIR, `${name}.json`);
  let parsed: ContractArtifact;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8')) as ContractArtifact;
  } catch (err) {
    throw new Error(
      `contract artifact ${name} not readable at ${file} (run npm run contracts:build): ${String(err)}`,
    );
  }
  ownCache.set(name, parsed);
  return parsed;
}

/**
 * Uniswap V2, V3 and V4 artifacts from npm. Their files hold `abi`, `bytecode` (no 0x prefix) and
 * `evm.bytecode.object` / `evm.deployedBytecode.object`; the prefix is added here.
 */
export function uniswapArtifact(name: UniswapContractName): Artifact {
  const cached = uniswapCache.get(name);
  if (cached) return cached;
  const pkgDir = path.dirname(require.resolve(`${UNISWAP_PACKAGE[name]}/package.json`));
  const raw = JSON.parse(readFileSync(artifactFile(pkgDir, name), 'utf8')) as {
    abi: InterfaceAbi;
    bytecode?: RawCode;
    deployedBytecode?: RawCode;
    evm?: { bytecode?: { object?: string }; deployedBytecode?: { object?: string } };
  };
  const bytecode = codeOf(raw.bytecode) ?? raw.evm?.bytecode?.object;
  if (!bytecode) throw new Error(`Uniswap artifact ${name} has no bytecode`);
  const artifact: Artifact = {
    abi: raw.abi,
    bytecode: with0x(bytecode),
    deployedBytecode: with0x(
      codeOf(raw.deployedBytecode) ?? raw.evm?.deployedBytecode?.object ?? '',
    ),
  };
  uniswapCache.set(name, artifact);
  return artifact;
}
