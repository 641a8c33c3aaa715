import { hasOpcode, isEip1167 } from '../../evm/bytecode.ts';
import { selectorOf } from '../catalog/index.ts';
import { normalizeCode } from './selectors.ts';

/**
 * Which well-known template a contract was built from, judged by its selector set (and, for
 * proxies, the code shape). Returns null rather than a guess when nothing fits clearly.
 */

export type TemplateId =
  | 'eip1167-minimal-proxy'
  | 'erc1967-proxy'
  | 'reflection-token'
  | 'launchpad-tax-token'
  | 'openzeppelin-erc20'
  | 'plain-erc20';

export interface TemplateMatch {
  template: TemplateId;
  /** Why: the selectors or code shape that decided it. */
  evidence: string;
}

const set = (...signatures: string[]) => new Map(signatures.map((s) => [selectorOf(s), s]));

const ERC20_CORE = set(
  'totalSupply()',
  'balanceOf(address)',
  'transfer(address,uint256)',
  'transferFrom(address,address,uint256)',
  'approve(address,uint256)',
  'allowance(address,address)',
);
/** OpenZeppelin ERC20 (v2 to v4) adds these two; few hand-written tokens have both. */
const OPENZEPPELIN_EXTRAS = set(
  'increaseAllowance(address,uint256)',
  'decreaseAllowance(address,uint256)',
);
/** The RFI / SafeMoon reflection core: a token balance derived from a reflected balance. */
const REFLECTION = set('reflectionFromToken(uint256,bool)', 'tokenFromReflection(uint256)');
const REFLECTION_EXTRAS = set(
  'excludeFromReward(address)',
  'includeInReward(address)',
  'isExcludedFromReward(address)',
  'totalFees()',
  'deliver(uint256)',
);
/** Launch-pad tax tokens: a stored router and pair, tax wallets, an automatic swap of the tax. */
const TAX_TOKEN_MARKERS = set(
  'uniswapV2Router()',
  'uniswapV2Pair()',
  'swapAndLiquifyEnabled()',
  'setSwapAndLiquifyEnabled(bool)',
  'marketingWallet()',
  'setMarketingWallet(address)',
  'swapTokensAtAmount()',
  'setSwapTokensAtAmount(uint256)',
  'excludeFromFee(address)',
  'excludeFromFees(address,bool)',
  'isExcludedFromFee(address)',
  '_maxTxAmount()',
  '_maxWalletSize()',
  'maxTransactionAmount()',
  'maxWallet()',
  'openTrading()',
  'enableTrading()',
  'manualswap()',
  'manualsend()',
  'removeLimits()',
  'tradingOpen()',
  'swapEnabled()',
  'buyTotalFees()',
  'sellTotalFees()',
  'setSwapEnabled(bool)',
  'marketingFee()',
  'liquidityFee()',
  'devWallet()',
);
const TAX_TOKEN_MIN_MARKERS = 3;
/** Proxies have almost no functions of their own; more means a contract that also delegates. */
const PROXY_MAX_FUNCTIONS = 8;
const EIP1967_IMPLEMENTATION_SLOT =
  '360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc';
const DELEGATECALL = 0xf4;

function present(selectors: ReadonlySet<string>, wanted: ReadonlyMap<string, string>): string[] {
  return [...wanted]
    .filter(([selector]) => selectors.has(selector))
    .map(([, signature]) => signature);
}

export function identifyTemplate(
  code: string,
  selectorList: readonly string[],
): TemplateMatch | null {
  const hex = normalizeCode(code) ?? '';
  if (isEip1167(hex))
    return {
      template: 'eip1167-minimal-proxy',
      evidence: 'code is the EIP-1167 minimal proxy (delegates everything to one fixed address)',
    };
  const selectors = new Set(selectorList);
  const core = present(selectors, ERC20_CORE);
  const isErc20 = core.length === ERC20_CORE.size;
  if (
    !isErc20 &&
    selectors.size <= PROXY_MAX_FUNCTIONS &&
    hex.includes(EIP1967_IMPLEMENTATION_SLOT) &&
    hasOpcode(hex, DELEGATECALL)
  ) {
    return {
      template: 'erc1967-proxy',
      evidence: 'small contract that reads the EIP-1967 implementation slot and delegates calls',
    };
  }
  if (!isErc20) return null;
  const reflection = present(selectors, REFLECTION);
  if (reflection.length === REFLECTION.size) {
    const extras = present(selectors, REFLECTION_EXTRAS);
    return {
      template: 'reflection-token',
      evidence: `reflection token (RFI/SafeMoon): ${[...reflection, ...extras].join(', ')}`,
    };
  }
  const taxMarkers = present(selectors, TAX_TOKEN_MARKERS);
  if (taxMarkers.length >= TAX_TOKEN_MIN_MARKERS) {
    return {
      template: 'launchpad-tax-token',
      evidence: `launch-pad tax token: ${taxMarkers.join(', ')}`,
    };
  }
  const oz = present(selectors, OPENZEPPELIN_EXTRAS);
  if (oz.length === OPENZEPPELIN_EXTRAS.size) {
    return {
      template: 'openzeppelin-erc20',
      evidence: `ERC-20 with OpenZeppelin's ${oz.join(' and ')}`,
    };
  }
  return {
    template: 'plain-erc20',
    evidence: 'the six ERC-20 functions, no known template markers',
  };
}
