import { describe, expect, it } from 'vitest';
import { compileSolidity } from '../../../test/support/solc.ts';
import { selectorOf } from '../catalog/index.ts';
import { analyzeBytecode } from '../static/index.ts';

/**
 * The "can only lower" rule (capabilities/fee-direction.ts): a setter whose own checks bound what it stores by
 * what the slot held is no fee power, and no cap limit when transfer() fails on the slot only
 * when it is high. Controls: setters that can raise, an owner bypass, a cap that can only be
 * lowered (which still stops transfers).
 */

const SOURCE = `
pragma solidity ^0.8.20;
contract Base {
  mapping(address => uint256) public balanceOf;
  uint256 public totalSupply;
  address owner = msg.sender;
  address taxWallet = address(0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC);
  uint256 fee = 5;
  uint256 maxTx = 1e24;
  function _move(address f, address t, uint256 v) internal {
    require(v <= maxTx, "max tx");
    uint256 tax = v * fee / 100;
    balanceOf[f] -= v;
    balanceOf[t] += v - tax;
    balanceOf[address(this)] += tax;
  }
  function transfer(address t, uint256 v) external returns (bool) { _move(msg.sender, t, v); return true; }
}
contract Reduce is Base {
  uint256 buyFee = 5;
  function reduceFee(uint256 f) external {
    require(msg.sender == taxWallet);
    require(f <= fee && f <= buyFee);
    fee = f; buyFee = f;
  }
}
contract Capped is Base {
  function setFee(uint256 f) external { require(msg.sender == owner); require(f <= 25); fee = f; }
}
contract StepUp is Base {
  function setFee(uint256 f) external { require(msg.sender == owner); require(f <= fee + 5); fee = f; }
}
contract Bypass is Base {
  function setFee(uint256 f) external { require(f <= fee || msg.sender == owner); fee = f; }
}
contract LowerCap is Base {
  function setMaxTxAmount(uint256 m) external { require(msg.sender == owner); require(m <= maxTx); maxTx = m; }
}
`;

const contracts = compileSolidity(SOURCE);
const families = (name: string) =>
  analyzeBytecode(contracts[name]!.deployedBytecode).admin_functions.map(
    (f) => `${f.signature} ${f.family}`,
  );
const evidenceOf = (name: string, signature: string) =>
  analyzeBytecode(contracts[name]!.deployedBytecode)
    .admin_functions.filter((f) => f.signature === signature)
    .flatMap((f) => f.evidence.map((e) => e.detail))
    .join(' | ');

describe('setters that can only lower', () => {
  it('reduceFee bounded by the slots it writes is no fee power and no cap limit', () => {
    const found = families('Reduce');
    expect(found).toContain('reduceFee(uint256) other');
    expect(
      found.filter((f) => / (fee|max-tx|trading-switch)$/.test(f) && f.includes('reduceFee')),
    ).toEqual([]);
    // The tax is a share of the amount (`v - tax` fails only by arithmetic): no cap, so no
    // second, synthetic entry for it.
    const synthetic = `0x${selectorOf('reduceFee(uint256)')}(uint256)`;
    expect(found.filter((f) => f.startsWith(synthetic))).toEqual([]);
    expect(evidenceOf('Reduce', 'reduceFee(uint256)')).toMatch(
      /One-way: can only lower the fee\. reduceFee\(uint256\) \(0x[0-9a-f]{8}\) stores in slots 0x[0-9a-f]+, 0x[0-9a-f]+ only a value/,
    );
  });

  it('setters that can raise the fee stay fee powers', () => {
    expect(families('Capped')).toContain('setFee(uint256) fee');
    expect(families('StepUp')).toContain('setFee(uint256) fee');
    // The owner passes where a holder of the bound would not: the owner can raise it.
    expect(families('Bypass')).toContain('setFee(uint256) fee');
  });

  it('a cap that can only be lowered still stops transfers', () => {
    const found = families('LowerCap');
    expect(
      found.some((f) => f.startsWith('setMaxTxAmount(uint256)') && !f.endsWith(' other')),
    ).toBe(true);
    expect(evidenceOf('LowerCap', 'setMaxTxAmount(uint256)')).not.toMatch(/One-way/);
  });
});
