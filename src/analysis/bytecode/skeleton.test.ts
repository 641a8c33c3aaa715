import { describe, expect, it } from 'vitest';
import { loadArtifact } from '../../../contracts/artifacts.ts';
import { metadataLength, skeletonBytes, skeletonHash } from './skeleton.ts';

const hex = (code: string) => code.replace(/^0x/, '');
const clone = (implementation: string) =>
  `0x363d3d373d3d3d363d73${implementation}5af43d82803e903d91602b57fd5bf3`;

describe('skeleton hash', () => {
  it("strips solc's CBOR metadata trailer", () => {
    const code = loadArtifact('SimpleToken').deployedBytecode;
    const bytes = Buffer.from(hex(code), 'hex');
    const length = metadataLength(bytes);
    // solc ≥ 0.8: a2 64 'ipfs' <34 bytes> 64 'solc' <3 bytes> 00 33 (51 + 2 bytes).
    expect(length).toBe(0x33 + 2);
    expect(bytes[bytes.length - length]).toBe(0xa2);
    // Another IPFS hash (same code, other source comments) gives the same skeleton.
    // The trailer: a2 64 'ipfs' 58 22 <34-byte multihash> 64 'solc' 43 <version> 00 33.
    const start = hex(code).length - 2 * length;
    const hashAt = start + 2 * 8;
    const otherMetadata = `${hex(code).slice(0, hashAt)}${'ab'.repeat(34)}${hex(code).slice(hashAt + 68)}`;
    expect(otherMetadata.length).toBe(hex(code).length);
    expect(skeletonHash(otherMetadata)).toBe(skeletonHash(code));
  });

  it('is equal for clones of one template with different constants or addresses', () => {
    expect(skeletonHash(clone('11'.repeat(20)))).toBe(skeletonHash(clone('22'.repeat(20))));
    // A changed PUSH immediate (a fee, a supply, a hard-coded wallet) leaves the skeleton alone.
    const code = hex(loadArtifact('TaxToken').deployedBytecode);
    const firstPush2 = code.indexOf('61', 10);
    const mutated = `${code.slice(0, firstPush2 + 2)}ffff${code.slice(firstPush2 + 6)}`;
    expect(mutated).not.toBe(code);
    expect(skeletonHash(mutated)).toBe(skeletonHash(code));
  });

  it('differs when the instructions differ', () => {
    expect(skeletonHash(loadArtifact('SimpleToken').deployedBytecode)).not.toBe(
      skeletonHash(loadArtifact('MintableToken').deployedBytecode),
    );
    expect(skeletonHash('0x6001600201')).not.toBe(skeletonHash('0x6001600203'));
  });

  it('zeroes PUSH data, including a PUSH cut short by the end of the code', () => {
    expect(Buffer.from(skeletonBytes('0x60ff61abcd5b7f01')).toString('hex')).toBe(
      '6000610000' + '5b' + '7f00',
    );
    expect(Buffer.from(skeletonBytes('0x5f01')).toString('hex')).toBe('5f01'); // PUSH0 has no data
  });

  it('tolerates empty and non-hex code', () => {
    expect(skeletonHash('0x')).toBe(skeletonHash(''));
    expect(skeletonHash('not hex')).toBe(skeletonHash(''));
    expect(metadataLength(new Uint8Array([0x00, 0x05]))).toBe(0);
  });
});
