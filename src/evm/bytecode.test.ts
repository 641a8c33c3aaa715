import { id, keccak256, toBeHex } from 'ethers';
import { describe, expect, it } from 'vitest';
import { loadCorpus } from '../../test/support/corpus.ts';
import { bytecodeFacts, hasOpcode, isEip1167 } from './bytecode.ts';

const IMPLEMENTATION = 'bebebebebebebebebebebebebebebebebebebebe';
/** The runtime code of an EIP-1167 minimal proxy (clone) pointing at IMPLEMENTATION. */
const CLONE = `0x363d3d373d3d3d363d73${IMPLEMENTATION}5af43d82803e903d91602b57fd5bf3`;

/** bytes32(uint256(keccak256(label)) - 1), as EIP-1967 defines its slots. */
const eip1967Slot = (label: string) => toBeHex(BigInt(id(label)) - 1n, 32).slice(2);

const DELEGATECALL = 0xf4;
/** 3,000 JUMPDESTs: pads code past the "small proxy" size without adding any DELEGATECALL. */
const LARGE_FILLER = '5b'.repeat(3_000);
/** A large contract (> 2 KiB, no DELEGATECALL) that loads `word` with PUSH32 and SLOADs it. */
const largeWithPush32 = (word: string) => `0x6080604052${LARGE_FILLER}7f${word}5400`;

describe('isEip1167', () => {
  it('recognises a real clone runtime, with or without 0x, in any case', () => {
    expect(CLONE.length).toBe(2 + 90);
    expect(isEip1167(CLONE)).toBe(true);
    expect(isEip1167(CLONE.slice(2))).toBe(true);
    expect(isEip1167(CLONE.toUpperCase())).toBe(true);
  });

  it('rejects near misses', () => {
    expect(isEip1167(`${CLONE}00`)).toBe(false); // one byte too long
    expect(isEip1167(CLONE.replace('363d3d37', '363d3d38'))).toBe(false); // altered prefix
    expect(isEip1167(CLONE.replace('5af43d82', '5af43d83'))).toBe(false); // altered suffix
    expect(isEip1167('0x')).toBe(false);
    expect(
      isEip1167(`0x363d3d373d3d3d363d73${IMPLEMENTATION.slice(2)}5af43d82803e903d91602b57fd5bf3`),
    ).toBe(false); // 19-byte address
  });
});

describe('hasOpcode', () => {
  it('finds an opcode in the instruction stream', () => {
    expect(hasOpcode('60005af4', DELEGATECALL)).toBe(true); // PUSH1 0 GAS DELEGATECALL
    expect(hasOpcode('f4', DELEGATECALL)).toBe(true);
    expect(hasOpcode('6000', DELEGATECALL)).toBe(false);
  });

  it('does not take a 0xf4 byte inside PUSH data for an opcode', () => {
    expect(hasOpcode('60f4', DELEGATECALL)).toBe(false); // PUSH1 0xf4
    expect(hasOpcode('61f4f400', DELEGATECALL)).toBe(false); // PUSH2 0xf4f4, STOP
    expect(hasOpcode(`7f${'f4'.repeat(32)}00`, DELEGATECALL)).toBe(false); // PUSH32 of f4s
    expect(hasOpcode(`7f${'f4'.repeat(32)}f4`, DELEGATECALL)).toBe(true); // …then a real one
    expect(hasOpcode('60f4f4', DELEGATECALL)).toBe(true); // PUSH1 0xf4, DELEGATECALL
    expect(hasOpcode('7ff4f4', DELEGATECALL)).toBe(false); // truncated PUSH32 at the end of the code
  });

  it('accepts 0x-prefixed, upper-case and odd-length hex like the other helpers', () => {
    expect(hasOpcode('0x60005af4', DELEGATECALL)).toBe(true);
    expect(hasOpcode('0X60005AF4', DELEGATECALL)).toBe(true);
    expect(hasOpcode('0x60f4', DELEGATECALL)).toBe(false);
    // Odd length: a leading zero nibble is implied, as bytecodeFacts does: 0a 5a f4 (EXP, GAS, DELEGATECALL).
    expect(hasOpcode('0xa5af4', DELEGATECALL)).toBe(true);
    expect(hasOpcode('a5af4', DELEGATECALL)).toBe(true);
  });

  it('handles empty code', () => {
    expect(hasOpcode('', DELEGATECALL)).toBe(false);
    expect(hasOpcode('0x', 0x00)).toBe(false);
  });
});

describe('bytecodeFacts', () => {
  it('marks an EIP-1167 clone proxy-like', () => {
    const facts = bytecodeFacts(CLONE);
    expect(facts).toEqual({ bytecodeHash: keccak256(CLONE), codeLength: 45, proxyLike: true });
  });

  it('marks code holding an EIP-1967 / EIP-1822 / legacy slot constant in a PUSH32 proxy-like', () => {
    const implementationSlot = eip1967Slot('eip1967.proxy.implementation');
    expect(implementationSlot).toBe(
      '360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc',
    );
    const slots = [
      implementationSlot,
      eip1967Slot('eip1967.proxy.beacon'),
      eip1967Slot('eip1967.proxy.admin'),
      id('PROXIABLE').slice(2), // EIP-1822
      id('org.zeppelinos.proxy.implementation').slice(2), // OpenZeppelin legacy
    ];
    for (const slot of slots) {
      const code = largeWithPush32(slot);
      const facts = bytecodeFacts(code);
      expect(facts.codeLength).toBeGreaterThan(2_048);
      expect(facts.proxyLike, slot).toBe(true);
      // Also in upper case.
      expect(bytecodeFacts(code.toUpperCase().replace('0X', '0x')).proxyLike, slot).toBe(true);
    }
  });

  it('does not mark large code with an unrelated PUSH32 constant proxy-like', () => {
    // keccak256("Transfer(address,address,uint256)") — every ERC-20 has it.
    const facts = bytecodeFacts(largeWithPush32(id('Transfer(address,address,uint256)').slice(2)));
    expect(facts.proxyLike).toBe(false);
  });

  it('marks small code with a real DELEGATECALL proxy-like, but not one with 0xf4 only in PUSH data', () => {
    // calldatacopy + delegatecall to a PUSH20 address, the shape of a hand-rolled proxy.
    const handRolled = `0x366000600037600060003660007300${'11'.repeat(19)}5af43d6000803e3d6000f3`;
    expect(bytecodeFacts(handRolled).proxyLike).toBe(true);
    const pushDataOnly = `0x6080604052${'60f4'.repeat(20)}7f${'f4'.repeat(32)}00`;
    expect(bytecodeFacts(pushDataOnly).proxyLike).toBe(false);
  });

  it('only trusts DELEGATECALL for code up to 2,048 bytes', () => {
    const withDelegatecall = (bytes: number) => `0x${'5b'.repeat(bytes - 1)}f4`;
    expect(bytecodeFacts(withDelegatecall(2_048))).toMatchObject({
      codeLength: 2_048,
      proxyLike: true,
    });
    expect(bytecodeFacts(withDelegatecall(2_049))).toMatchObject({
      codeLength: 2_049,
      proxyLike: false,
    });
  });

  it('gives codeLength 0 and proxyLike false for empty code', () => {
    const empty = keccak256('0x');
    expect(empty).toBe('0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470');
    expect(bytecodeFacts('0x')).toEqual({ bytecodeHash: empty, codeLength: 0, proxyLike: false });
    expect(bytecodeFacts('')).toEqual({ bytecodeHash: empty, codeLength: 0, proxyLike: false });
  });

  it('hashes the bytes with keccak256', () => {
    const code =
      '0x6080604052348015600f57600080fd5b50603f80601d6000396000f3fe6080604052600080fdfea164736f6c6343000814000a';
    const facts = bytecodeFacts(code);
    expect(facts.bytecodeHash).toBe(keccak256(code));
    expect(facts.codeLength).toBe((code.length - 2) / 2);
    expect(facts.proxyLike).toBe(false);
  });

  it('normalizes upper-case, 0X and odd-length input to the same bytes', () => {
    const lower = bytecodeFacts('0x60806040');
    expect(bytecodeFacts('0x60806040'.toUpperCase())).toEqual(lower);
    expect(bytecodeFacts('60806040')).toEqual(lower);
    // Odd length: a leading zero nibble is implied.
    const odd = bytecodeFacts('0xabc');
    expect(odd).toEqual(bytecodeFacts('0x0abc'));
    expect(odd.codeLength).toBe(2);
    expect(odd.bytecodeHash).toBe(keccak256('0x0abc'));
    expect(bytecodeFacts('0XABC')).toEqual(odd);
  });
});

describe('bytecodeFacts over real mainnet tokens', () => {
  const contracts = loadCorpus(200);

  it('reads 200 contracts from the corpus', () => {
    expect(contracts).toHaveLength(200);
  });

  it('returns a 32-byte hash and the right length for each, without throwing', () => {
    let proxies = 0;
    for (const { address, runtime_bytecode: code } of contracts) {
      const facts = bytecodeFacts(code);
      expect(facts.bytecodeHash, address).toMatch(/^0x[0-9a-f]{64}$/);
      expect(facts.bytecodeHash).toHaveLength(66);
      expect(facts.bytecodeHash, address).toBe(keccak256(code.toLowerCase()));
      expect(facts.codeLength, address).toBe((code.length - 2) / 2);
      expect(typeof facts.proxyLike).toBe('boolean');
      if (facts.proxyLike) proxies++;
    }
    // Mostly ordinary tokens: proxy detection must not fire on everything.
    expect(proxies).toBeLessThan(contracts.length / 2);
  });
});
