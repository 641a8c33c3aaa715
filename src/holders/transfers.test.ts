import { describe, expect, it } from 'vitest';
import { TRANSFER_TOPIC } from '../evm/deployments.ts';
import type { RpcReceipt } from '../evm/types.ts';
import {
  balanceChanges,
  packTransfers,
  transfersOf,
  unpackTransfers,
  ZERO_ADDRESS,
} from './transfers.ts';

const word = (hex: string) => `0x${hex.replace(/^0x/, '').padStart(64, '0')}`;
const A = '0x00000000000000000000000000000000000000aa';
const B = '0x00000000000000000000000000000000000000bb';
const TOKEN = '0x00000000000000000000000000000000000000cc';
const NFT = '0x00000000000000000000000000000000000000dd';

function receipt(logs: RpcReceipt['logs'], status = '0x1'): RpcReceipt {
  return {
    transactionHash: word('1'),
    from: A,
    to: TOKEN,
    contractAddress: null,
    status,
    gasUsed: '0x1',
    blockNumber: '0x1',
    blockHash: word('2'),
    logs,
  };
}
const transfer = (token: string, from: string, to: string, value: bigint) => ({
  address: token,
  topics: [TRANSFER_TOPIC, word(from), word(to)],
  data: word(value.toString(16)),
  transactionHash: word('1'),
});

describe('transfersOf', () => {
  it('reads ERC-20 Transfers and leaves ERC-721, malformed and failed ones out', () => {
    const erc721 = {
      ...transfer(NFT, A, B, 7n),
      topics: [TRANSFER_TOPIC, word(A), word(B), word('7')],
      data: '0x',
    };
    const short = { ...transfer(TOKEN, A, B, 1n), data: '0x01' };
    const found = transfersOf([
      receipt([transfer(TOKEN.toUpperCase().replace('0X', '0x'), A, B, 5n), erc721, short]),
      receipt([transfer(TOKEN, B, A, 1n)], '0x0'),
    ]);
    expect(found).toEqual([{ token: TOKEN, from: A, to: B, value: 5n }]);
  });
});

describe('balanceChanges', () => {
  it('nets per token and holder, skips the zero address and untracked tokens', () => {
    const changes = balanceChanges(
      [
        { token: TOKEN, from: ZERO_ADDRESS, to: A, value: 100n },
        { token: TOKEN, from: A, to: B, value: 30n },
        { token: TOKEN, from: B, to: A, value: 30n },
        { token: TOKEN, from: A, to: ZERO_ADDRESS, value: 10n },
        { token: NFT, from: A, to: B, value: 1n },
      ],
      new Set([TOKEN]),
    );
    expect(changes).toEqual([{ token: TOKEN, holder: A, delta: 90n }]);
  });

  it('packs and unpacks losslessly (amounts beyond 2^53)', () => {
    const big = [{ token: TOKEN, from: A, to: B, value: 2n ** 200n + 1n }];
    expect(unpackTransfers(JSON.parse(JSON.stringify(packTransfers(big))))).toEqual(big);
  });
});
