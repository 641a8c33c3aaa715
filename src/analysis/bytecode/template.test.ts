import { describe, expect, it } from 'vitest';
import { loadArtifact } from '../../../contracts/artifacts.ts';
import { selectorOf } from '../catalog/index.ts';
import { extractFunctions } from './selectors.ts';
import { identifyTemplate } from './template.ts';

const ERC20 = [
  'totalSupply()',
  'balanceOf(address)',
  'transfer(address,uint256)',
  'transferFrom(address,address,uint256)',
  'approve(address,uint256)',
  'allowance(address,address)',
];
const selectors = (...signatures: string[]) => signatures.map(selectorOf);
const TOKEN_CODE = '0x6080';

describe('identifyTemplate', () => {
  it('recognises the demo contracts', () => {
    const of = (name: 'SimpleToken' | 'TokenProxy' | 'NotAToken') => {
      const code = loadArtifact(name).deployedBytecode;
      return (
        identifyTemplate(
          code,
          extractFunctions(code).functions.map((f) => f.selector),
        )?.template ?? null
      );
    };
    expect(of('SimpleToken')).toBe('plain-erc20');
    expect(of('TokenProxy')).toBe('erc1967-proxy');
    expect(of('NotAToken')).toBeNull();
    const clone = `0x363d3d373d3d3d363d73${'ab'.repeat(20)}5af43d82803e903d91602b57fd5bf3`;
    expect(identifyTemplate(clone, [])?.template).toBe('eip1167-minimal-proxy');
  });

  it('tells reflection, launch-pad tax, OpenZeppelin and plain ERC-20 apart by their selectors', () => {
    expect(
      identifyTemplate(
        TOKEN_CODE,
        selectors(
          ...ERC20,
          'reflectionFromToken(uint256,bool)',
          'tokenFromReflection(uint256)',
          'excludeFromReward(address)',
        ),
      ),
    ).toMatchObject({
      template: 'reflection-token',
      evidence: expect.stringContaining('excludeFromReward(address)'),
    });
    expect(
      identifyTemplate(
        TOKEN_CODE,
        selectors(
          ...ERC20,
          'uniswapV2Router()',
          'uniswapV2Pair()',
          'setSwapAndLiquifyEnabled(bool)',
          'marketingWallet()',
        ),
      )?.template,
    ).toBe('launchpad-tax-token');
    expect(
      identifyTemplate(
        TOKEN_CODE,
        selectors(
          ...ERC20,
          'increaseAllowance(address,uint256)',
          'decreaseAllowance(address,uint256)',
        ),
      )?.template,
    ).toBe('openzeppelin-erc20');
    expect(identifyTemplate(TOKEN_CODE, selectors(...ERC20))?.template).toBe('plain-erc20');
  });

  it('returns null when unsure', () => {
    // Two tax markers are not enough; a missing ERC-20 function means no token template.
    expect(
      identifyTemplate(TOKEN_CODE, selectors(...ERC20, 'uniswapV2Pair()', 'manualswap()'))
        ?.template,
    ).toBe('plain-erc20');
    expect(identifyTemplate(TOKEN_CODE, selectors(...ERC20.slice(1)))).toBeNull();
    expect(identifyTemplate('', [])).toBeNull();
  });
});
