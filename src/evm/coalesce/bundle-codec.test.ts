import { AbiCoder, Interface } from 'ethers';
import { describe, expect, it } from 'vitest';
import { loadArtifact } from '../../../contracts/artifacts.ts';
import { RpcError } from '../rpc.ts';
import {
  type BundleAnswer,
  type BundleCall,
  decodeCallAll,
  encodeCallAll,
} from './bundle-codec.ts';

/** The hand-written coding of CallBundle.callAll against ethers' generic coder. */

const bundle = new Interface(loadArtifact('CallBundle').abi);
const ANSWER = ['tuple(bool,bool,bytes,uint256)[]'];

/** A deterministic pseudo-random stream, so that a failure can be replayed. */
function stream(seed: number) {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return x;
  };
}

const hexOf = (next: () => number, bytes: number) =>
  `0x${Array.from({ length: bytes }, () => (next() % 256).toString(16).padStart(2, '0')).join('')}`;

function calls(next: () => number, n: number): BundleCall[] {
  return Array.from({ length: n }, () => ({
    target: hexOf(next, 20),
    gas: BigInt(next()) * BigInt(next() % 1000),
    // 0 to 100 bytes: empty data, partial words and whole words.
    data: hexOf(next, next() % 101),
  }));
}

function answers(next: () => number, n: number): BundleAnswer[] {
  return Array.from({ length: n }, () => ({
    ran: next() % 4 !== 0,
    ok: next() % 3 !== 0,
    data: hexOf(next, next() % 200),
    gasUsed: BigInt(next()),
  }));
}

describe('callAll coding', () => {
  it('encodes calls exactly as ethers does', () => {
    const next = stream(7);
    for (const n of [0, 1, 2, 9, 57]) {
      const c = calls(next, n);
      expect(encodeCallAll(c)).toBe(
        bundle.encodeFunctionData('callAll', [c.map((x) => [x.target, x.gas, x.data])]),
      );
    }
  });

  it('decodes answers exactly as ethers does', () => {
    const next = stream(11);
    for (const n of [0, 1, 3, 64]) {
      const a = answers(next, n);
      const encoded = AbiCoder.defaultAbiCoder().encode(ANSWER, [
        a.map((x) => [x.ran, x.ok, x.data, x.gasUsed]),
      ]);
      const theirs = (bundle.decodeFunctionResult('callAll', encoded)[0] as unknown[][]).map(
        (t) => ({ ran: t[0], ok: t[1], data: t[2], gasUsed: t[3] }),
      );
      expect(decodeCallAll(encoded)).toEqual(theirs);
      expect(decodeCallAll(encoded)).toEqual(a);
    }
  });

  it('refuses an answer whose offsets or lengths point beyond it, with a bad-response error', () => {
    const encoded = AbiCoder.defaultAbiCoder().encode(ANSWER, [[[true, true, '0x1234', 5n]]]);
    for (const broken of [
      encoded.slice(0, encoded.length - 64),
      `0x${'f'.repeat(64)}${encoded.slice(66)}`,
      '0x',
    ]) {
      const error = (() => {
        try {
          decodeCallAll(broken);
        } catch (e) {
          return e;
        }
      })();
      expect(error).toBeInstanceOf(RpcError);
      expect((error as RpcError).kind).toBe('bad-response');
    }
  });
});
