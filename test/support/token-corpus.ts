import {
  Contract,
  ContractFactory,
  type ContractTransactionResponse,
  encodeBytes32String,
  Interface,
  type InterfaceAbi,
  parseEther,
} from 'ethers';
import { type ContractName, loadArtifact, uniswapArtifact } from '../../contracts/artifacts.ts';
import { addLiquidity, type TestChain, waitMined } from './chain.ts';

/**
 * The analysis corpus: one realistic contract per behaviour, deployed on Anvil
 * with Uniswap V2 liquidity, each with the truth about what it does, written from its Solidity
 * source. Tests and benchmarks compare the pipeline's flags with `truth`; nothing in the service
 * ever sees these names.
 */

export const CORPUS_SUPPLY = parseEther('1000000');
/** Half the supply and 10 ETH go into each pool. */
export const POOL_TOKENS = CORPUS_SUPPLY / 2n;
export const POOL_ETH = parseEther('10');
/** Tiered honeypot: sells above this many tokens revert (a 0.1 % buy of the pool stays below). */
export const TIERED_SELL_CEILING = parseEther('1000');
/** MaxTxToken limits: 0.5 % of the supply per transfer, 1 % per wallet. */
export const MAX_TX = CORPUS_SUPPLY / 200n;
export const MAX_WALLET = CORPUS_SUPPLY / 100n;

/** Flags the pipeline must report, and the taxes it must measure (percent). */
export interface Truth {
  honeypot: boolean;
  mintable: boolean;
  blacklist: boolean;
  pause: boolean;
  fee_modifiable: boolean;
  max_tx: boolean;
  trading_restricted: boolean;
  hidden_owner: boolean;
  proxy: boolean;
  balance_change: boolean;
  renounced: boolean;
  buy_tax_pct: number;
  sell_tax_pct: number | null;
  transfer_tax_pct: number;
}

export const FLAGS = [
  'honeypot',
  'mintable',
  'blacklist',
  'pause',
  'fee_modifiable',
  'max_tx',
  'trading_restricted',
  'hidden_owner',
  'proxy',
  'balance_change',
  'renounced',
] as const;
export type Flag = (typeof FLAGS)[number];

const NONE: Truth = {
  honeypot: false,
  mintable: false,
  blacklist: false,
  pause: false,
  fee_modifiable: false,
  max_tx: false,
  trading_restricted: false,
  hidden_owner: false,
  proxy: false,
  balance_change: false,
  renounced: false,
  buy_tax_pct: 0,
  sell_tax_pct: 0,
  transfer_tax_pct: 0,
};

export interface CorpusToken {
  kind: string;
  address: string;
  pair: string | null;
  truth: Truth;
}

type Deployer = (
  chain: TestChain,
  i: number,
) => Promise<{
  address: string;
  pairAware?: boolean;
  afterLiquidity?: (address: string) => Promise<void>;
}>;

const send = (chain: TestChain, tx: Promise<unknown>) =>
  waitMined(chain.provider, tx as Promise<ContractTransactionResponse>);

async function deployContract(
  chain: TestChain,
  name: ContractName,
  args: unknown[] = [],
): Promise<{ address: string; contract: Contract }> {
  const artifact = loadArtifact(name);
  const contract = await new ContractFactory(
    artifact.abi as InterfaceAbi,
    artifact.bytecode,
    chain.signer,
  ).deploy(...args);
  const receipt = await waitMined(chain.provider, contract.deploymentTransaction()!);
  const address = receipt.contractAddress!.toLowerCase();
  return { address, contract: new Contract(address, artifact.abi as InterfaceAbi, chain.signer) };
}

/** Token/WETH liquidity through the real Router02, in the corpus's pool size; returns the pair. */
export const addPoolLiquidity = (
  chain: TestChain,
  token: string,
  tokenAmount: bigint = POOL_TOKENS,
  ethAmount: bigint = POOL_ETH,
): Promise<string> => addLiquidity(chain, token, tokenAmount, ethAmount);

const name = (kind: string, i: number) => [
  `${kind} ${i}`,
  `${kind
    .replace(/[^a-z]/g, '')
    .slice(0, 4)
    .toUpperCase()}${i}`,
];

/** How each kind is deployed, and what it really does. */
export const CORPUS_KINDS: Record<string, { deploy: Deployer; truth: Truth }> = {
  simple: {
    deploy: async (c, i) => deployContract(c, 'SimpleToken', [...name('simple', i), CORPUS_SUPPLY]),
    truth: NONE,
  },
  renounced: {
    deploy: async (c, i) => {
      const d = await deployContract(c, 'RenouncedToken', [...name('renounced', i), CORPUS_SUPPLY]);
      return {
        address: d.address,
        afterLiquidity: async (a) =>
          void (await send(c, c.contract('RenouncedToken', a).getFunction('renounceOwnership')())),
      };
    },
    truth: { ...NONE, renounced: true },
  },
  mintable: {
    deploy: async (c, i) =>
      deployContract(c, 'MintableToken', [...name('mintable', i), CORPUS_SUPPLY]),
    truth: { ...NONE, mintable: true },
  },
  blacklist: {
    deploy: async (c, i) =>
      deployContract(c, 'BlacklistToken', [...name('blacklist', i), CORPUS_SUPPLY]),
    truth: { ...NONE, blacklist: true },
  },
  pausable: {
    deploy: async (c, i) =>
      deployContract(c, 'PausableToken', [...name('pausable', i), CORPUS_SUPPLY]),
    truth: { ...NONE, pause: true },
  },
  'fixed-tax': {
    deploy: async (c, i) =>
      deployContract(c, 'FixedTaxToken', [
        ...name('fixed-tax', i),
        CORPUS_SUPPLY,
        300,
        500,
        c.uniswap.factory,
        c.uniswap.weth,
      ]),
    truth: { ...NONE, buy_tax_pct: 3, sell_tax_pct: 5 },
  },
  tax: {
    deploy: async (c, i) => ({
      ...(await deployContract(c, 'TaxToken', [...name('tax', i), CORPUS_SUPPLY, 500, 1_000])),
      pairAware: true,
    }),
    // setFees accepts up to FEE_DENOMINATOR (10,000 basis points): a fee that can take the whole
    // sale is a limit, as for disguised-fee below.
    truth: {
      ...NONE,
      fee_modifiable: true,
      trading_restricted: true,
      buy_tax_pct: 5,
      sell_tax_pct: 10,
    },
  },
  'tax-punitive': {
    // The same modifiable tax contract with a 95 % sell tax: a soft honeypot.
    deploy: async (c, i) => ({
      ...(await deployContract(c, 'TaxToken', [
        ...name('tax-punitive', i),
        CORPUS_SUPPLY,
        0,
        9_500,
      ])),
      pairAware: true,
    }),
    truth: {
      ...NONE,
      honeypot: true,
      fee_modifiable: true,
      trading_restricted: true,
      buy_tax_pct: 0,
      sell_tax_pct: 95,
    },
  },
  honeypot: {
    deploy: async (c, i) => ({
      ...(await deployContract(c, 'HoneypotToken', [...name('honeypot', i), CORPUS_SUPPLY])),
      pairAware: true,
    }),
    // Only the owner and listed accounts can sell, and setWhitelisted unlists anyone: a limit
    // the owner holds (can_blacklist), beside the honeypot the simulation sees.
    truth: { ...NONE, honeypot: true, blacklist: true, sell_tax_pct: null },
  },
  'tiered-honeypot': {
    deploy: async (c, i) => ({
      ...(await deployContract(c, 'TieredHoneypotToken', [
        ...name('tiered', i),
        CORPUS_SUPPLY,
        TIERED_SELL_CEILING,
      ])),
      pairAware: true,
    }),
    truth: { ...NONE, honeypot: true, sell_tax_pct: 0 },
  },
  'trading-disabled': {
    deploy: async (c, i) =>
      deployContract(c, 'LaunchGuardToken', [...name('launch', i), CORPUS_SUPPLY]),
    truth: { ...NONE, trading_restricted: true },
  },
  'max-tx': {
    deploy: async (c, i) => ({
      ...(await deployContract(c, 'MaxTxToken', [
        ...name('max-tx', i),
        CORPUS_SUPPLY,
        MAX_TX,
        MAX_WALLET,
      ])),
      pairAware: true,
    }),
    // setLimits has no lower bound and the max tx spares no sale: at zero only exempt accounts
    // can sell (trading_restricted), though trading is open now.
    truth: { ...NONE, max_tx: true, trading_restricted: true },
  },
  'fake-renounce': {
    deploy: async (c, i) => {
      const d = await deployContract(c, 'FakeRenounceToken', [
        ...name('fake-renounce', i),
        CORPUS_SUPPLY,
      ]);
      return {
        address: d.address,
        afterLiquidity: async (a) =>
          void (await send(
            c,
            c.contract('FakeRenounceToken', a).getFunction('renounceOwnership')(),
          )),
      };
    },
    truth: { ...NONE, mintable: true, hidden_owner: true },
  },
  'balance-control': {
    deploy: async (c, i) =>
      deployContract(c, 'BalanceControlToken', [...name('balance', i), CORPUS_SUPPLY]),
    truth: { ...NONE, balance_change: true },
  },
  proxy: {
    deploy: async (c, i) => {
      const impl = await deployContract(c, 'UpgradeableToken');
      const init = new Interface(loadArtifact('UpgradeableToken').abi).encodeFunctionData(
        'initialize',
        [...name('proxy', i), CORPUS_SUPPLY, c.account],
      );
      return deployContract(c, 'TokenProxy', [impl.address, init]);
    },
    truth: { ...NONE, proxy: true, mintable: true },
  },
  clone: {
    deploy: async (c, i) => {
      const impl = await deployContract(c, 'UpgradeableToken');
      const factory = await deployContract(c, 'TokenFactory');
      const init = new Interface(loadArtifact('UpgradeableToken').abi).encodeFunctionData(
        'initialize',
        [...name('clone', i), CORPUS_SUPPLY, c.account],
      );
      const receipt = await send(
        c,
        factory.contract.getFunction('cloneTokenAndCall')(impl.address, init),
      );
      const event = receipt.logs
        .map((l) => factory.contract.interface.parseLog(l))
        .find((l) => l?.name === 'TokenCreated');
      return { address: String(event!.args.getValue('token')).toLowerCase() };
    },
    truth: { ...NONE, proxy: true, mintable: true },
  },
  bytes32: {
    deploy: async (c, i) =>
      deployContract(c, 'Bytes32Token', [
        encodeBytes32String(`Bytes ${i}`),
        encodeBytes32String(`B32${i}`),
        CORPUS_SUPPLY,
      ]),
    truth: NONE,
  },
  'disguised-mint': {
    deploy: async (c, i) =>
      deployContract(c, 'DisguisedMintToken', [...name('dmint', i), CORPUS_SUPPLY]),
    truth: { ...NONE, mintable: true },
  },
  'disguised-blacklist': {
    deploy: async (c, i) =>
      deployContract(c, 'DisguisedBlacklistToken', [...name('dblack', i), CORPUS_SUPPLY]),
    truth: { ...NONE, blacklist: true },
  },
  'disguised-pause': {
    deploy: async (c, i) =>
      deployContract(c, 'DisguisedPauseToken', [...name('dpause', i), CORPUS_SUPPLY]),
    truth: { ...NONE, pause: true },
  },
  'disguised-fee': {
    deploy: async (c, i) => ({
      ...(await deployContract(c, 'DisguisedFeeToken', [
        ...name('dfee', i),
        CORPUS_SUPPLY,
        200,
        200,
      ])),
      pairAware: true,
    }),
    // updatePoolWeights accepts up to 10,000 basis points: a fee that takes the whole sale is a limit.
    truth: {
      ...NONE,
      fee_modifiable: true,
      trading_restricted: true,
      buy_tax_pct: 2,
      sell_tax_pct: 2,
    },
  },
  'disguised-balance': {
    deploy: async (c, i) =>
      deployContract(c, 'DisguisedBalanceToken', [...name('dbalance', i), CORPUS_SUPPLY]),
    truth: { ...NONE, balance_change: true },
  },
};

export const CORPUS_KIND_NAMES = Object.keys(CORPUS_KINDS);

/** Contracts whose ABI has setPair (PairAware). */
const PAIR_AWARE_ABI: ContractName = 'TaxToken';

/** Creates the WETH pair first, for tokens whose rules must know it before liquidity arrives. */
async function createAndSetPair(chain: TestChain, token: string): Promise<void> {
  const factory = new Contract(
    chain.uniswap.factory,
    uniswapArtifact('UniswapV2Factory').abi as InterfaceAbi,
    chain.signer,
  );
  await send(chain, factory.getFunction('createPair')(token, chain.uniswap.weth));
  const pair = (await factory.getFunction('getPair')(token, chain.uniswap.weth)) as string;
  await send(chain, chain.contract(PAIR_AWARE_ABI, token).getFunction('setPair')(pair));
}

/** Deploys one token of `kind`, with a pool unless `liquidity` is false. */
export async function deployCorpusToken(
  chain: TestChain,
  kind: string,
  i = 0,
  options: { liquidity?: boolean } = {},
): Promise<CorpusToken> {
  const spec = CORPUS_KINDS[kind];
  if (!spec) throw new Error(`unknown corpus kind ${kind}`);
  const deployed = await spec.deploy(chain, i);
  const address = deployed.address.toLowerCase();
  let pair: string | null = null;
  if (options.liquidity ?? true) {
    if (deployed.pairAware) await createAndSetPair(chain, address);
    pair = await addPoolLiquidity(chain, address);
  }
  await deployed.afterLiquidity?.(address);
  return { kind, address, pair, truth: spec.truth };
}

/** Anvil's dev accounts hold 10,000 ETH: enough for ~1,000 pools, not more. Topped up below this. */
const LOW_BALANCE = parseEther('1000');
const TOP_UP = parseEther('1000000');

async function ensureFunds(chain: TestChain): Promise<void> {
  if ((await chain.provider.getBalance(chain.account)) >= LOW_BALANCE) return;
  await chain.provider.send('anvil_setBalance', [chain.account, `0x${TOP_UP.toString(16)}`]);
}

/** Every kind once (or `replicas` times), each with liquidity. */
export async function deployCorpus(
  chain: TestChain,
  options: { replicas?: number; kinds?: string[]; onProgress?: (n: number) => void } = {},
): Promise<CorpusToken[]> {
  const kinds = options.kinds ?? CORPUS_KIND_NAMES;
  const out: CorpusToken[] = [];
  for (let r = 0; r < (options.replicas ?? 1); r++) {
    await ensureFunds(chain);
    for (const kind of kinds) {
      out.push(await deployCorpusToken(chain, kind, r));
      options.onProgress?.(out.length);
    }
  }
  return out;
}

/** The flags the pipeline reported for a token, in the corpus's terms (from the tokens row). */
export function observedFlags(row: {
  isHoneypot: boolean | null;
  securityHints: unknown;
}): Record<Flag, boolean> {
  const h = (row.securityHints ?? {}) as Record<string, unknown>;
  return {
    honeypot: row.isHoneypot === true,
    mintable: h.is_mintable === true,
    blacklist: h.can_blacklist === true,
    pause: h.can_pause === true,
    fee_modifiable: h.fee_modifiable === true,
    max_tx: h.has_max_tx_limit === true,
    trading_restricted: h.trading_restricted === true,
    hidden_owner: h.hidden_owner === true,
    proxy: h.is_proxy === true,
    balance_change: h.owner_can_change_balance === true,
    renounced: h.ownership_renounced === true,
  };
}

/** The security_hints flag (or is_honeypot) that reports each corpus flag. */
export const FLAG_HINT: Record<Flag, string> = {
  honeypot: 'is_honeypot',
  mintable: 'is_mintable',
  blacklist: 'can_blacklist',
  pause: 'can_pause',
  fee_modifiable: 'fee_modifiable',
  max_tx: 'has_max_tx_limit',
  trading_restricted: 'trading_restricted',
  hidden_owner: 'hidden_owner',
  proxy: 'is_proxy',
  balance_change: 'owner_can_change_balance',
  renounced: 'ownership_renounced',
};

export interface FlagScore {
  flag: Flag;
  tp: number;
  fp: number;
  fn: number;
  precision: number;
  recall: number;
}

/** Precision and recall per flag over (truth, observed) pairs. A flag never present and never reported scores 1/1. */
export function flagScores(
  results: { truth: Truth; observed: Record<Flag, boolean> }[],
): FlagScore[] {
  return FLAGS.map((flag) => {
    let tp = 0;
    let fp = 0;
    let fn = 0;
    for (const r of results) {
      if (r.truth[flag] && r.observed[flag]) tp++;
      else if (!r.truth[flag] && r.observed[flag]) fp++;
      else if (r.truth[flag] && !r.observed[flag]) fn++;
    }
    return {
      flag,
      tp,
      fp,
      fn,
      precision: tp + fp === 0 ? 1 : tp / (tp + fp),
      recall: tp + fn === 0 ? 1 : tp / (tp + fn),
    };
  });
}
