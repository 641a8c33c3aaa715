import { AbiCoder, encodeBytes32String, hexlify, toUtf8Bytes } from 'ethers';
import { describe, expect, it } from 'vitest';
import { loadArtifact } from '../../contracts/artifacts.ts';
import {
  type Dispatch,
  dispatcherSelectors,
  interpretProbe,
  PROBE_REQUEST_COUNT,
  probeRequests,
  readText,
  readUint,
  SURFACE,
} from './erc20.ts';
import { RpcError, type RpcOutcome } from './rpc.ts';

const abi = AbiCoder.defaultAbiCoder();

const TOKEN = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';
const WETH = '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2';
const USDC = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';
const UNIV2_FACTORY = '0x5C69bEe701ef814a2B6a3EDD4B1652CB9cc5aA6f';

const uint = (v: bigint | number) => abi.encode(['uint256'], [v]);
const str = (v: string) => abi.encode(['string'], [v]);
const b32 = (v: string) => encodeBytes32String(v);
const addr = (v: string) => abi.encode(['address'], [v]);

type Field =
  | 'totalSupply'
  | 'balanceOf'
  | 'decimals'
  | 'name'
  | 'symbol'
  | 'token0'
  | 'token1'
  | 'factory'
  | 'transfer';
const FIELDS: Field[] = [
  'totalSupply',
  'balanceOf',
  'decimals',
  'name',
  'symbol',
  'token0',
  'token1',
  'factory',
  'transfer',
];

const reverted = (): RpcOutcome => ({
  ok: false,
  error: new RpcError('revert', 'execution reverted', 3, '0x'),
});

/** Outcomes in probe order; a field given as a string is a successful eth_call answer, a missing one reverted. */
function outcomes(answers: Partial<Record<Field, string | RpcOutcome>>): RpcOutcome[] {
  return FIELDS.map((f) => {
    const a = answers[f];
    if (a === undefined) return reverted();
    return typeof a === 'string' ? { ok: true, result: a } : a;
  });
}

const dispatch = (...selectors: string[]): Dispatch => ({
  selectors: new Set(selectors),
  source: 'the code',
});
/** A dispatcher routing the whole transfer surface. */
const FULL = dispatch(SURFACE.totalSupply, SURFACE.balanceOf, SURFACE.transfer);

const SUPPLY = 1_000_000n * 10n ** 18n;

describe('probeRequests', () => {
  const requests = probeRequests(TOKEN, '0x12a05f2');

  it('makes one eth_call per probed method, to the address, at the block tag', () => {
    expect(requests).toHaveLength(PROBE_REQUEST_COUNT);
    expect(PROBE_REQUEST_COUNT).toBe(9);
    for (const r of requests) {
      expect(r.method).toBe('eth_call');
      expect(r.params).toHaveLength(2);
      expect(r.params[0]).toMatchObject({ to: TOKEN });
      expect(r.params[1]).toBe('0x12a05f2');
    }
  });

  it('uses the real selectors, in the order interpretProbe expects', () => {
    const data = requests.map((r) => (r.params[0] as { data: string }).data);
    expect(data[0]).toBe('0x18160ddd'); // totalSupply()
    expect(data[1]).toBe(
      `0x70a08231${'000000000000000000000000000000000000dead'.padStart(64, '0')}`,
    ); // balanceOf(0x…dead)
    expect(data[1]).toHaveLength(2 + 8 + 64);
    expect(data[2]).toBe('0x313ce567'); // decimals()
    expect(data[3]).toBe('0x06fdde03'); // name()
    expect(data[4]).toBe('0x95d89b41'); // symbol()
    expect(data[5]).toBe('0x0dfe1681'); // token0()
    expect(data[6]).toBe('0xd21220a7'); // token1()
    expect(data[7]).toBe('0xc45a0155'); // factory()
    // transfer(0x…dead, 0), sent from a fixed keyless address.
    expect(data[8]).toBe(
      `0xa9059cbb${'000000000000000000000000000000000000dead'.padStart(64, '0')}${'0'.repeat(64)}`,
    );
    expect(requests[8]!.params[0]).toMatchObject({
      from: '0x000000000000000000000000000000000000beef',
    });
  });

  it('passes "latest" and other block tags through', () => {
    expect(probeRequests(TOKEN, 'latest')[0]!.params[1]).toBe('latest');
  });
});

describe('dispatcherSelectors on compiled contracts', () => {
  it('finds the transfer surface in a token and not in a staking pool that calls transfer() on others', () => {
    const token = dispatcherSelectors(loadArtifact('SimpleToken').deployedBytecode);
    expect(
      token &&
        [SURFACE.totalSupply, SURFACE.balanceOf, SURFACE.transfer].every((s) => token.has(s)),
    ).toBe(true);
    const pool = loadArtifact('StakingPool').deployedBytecode;
    // The pool's code holds the transfer selector (it pays out with it), but its dispatcher does not route it.
    expect(pool).toContain(`63${SURFACE.transfer}`);
    const routed = dispatcherSelectors(pool);
    expect(routed?.has(SURFACE.totalSupply)).toBe(true);
    expect(routed?.has(SURFACE.balanceOf)).toBe(true);
    expect(routed?.has(SURFACE.transfer)).toBe(false);
  });

  it('is null for no code, non-hex or odd-length code', () => {
    expect(dispatcherSelectors(null)).toBeNull();
    expect(dispatcherSelectors('0x')).toBeNull();
    expect(dispatcherSelectors('0xzz')).toBeNull();
    expect(dispatcherSelectors('0x600')).toBeNull();
  });
});

describe('interpretProbe', () => {
  it('reads a token with ABI-string name and symbol', () => {
    const result = interpretProbe(
      outcomes({
        totalSupply: uint(SUPPLY),
        balanceOf: uint(0),
        decimals: uint(6),
        name: str('USD Coin'),
        symbol: str('USDC'),
      }),
      FULL,
    );
    expect(result).toEqual({
      kind: 'token',
      name: 'USD Coin',
      symbol: 'USDC',
      decimals: 6,
      totalSupply: SUPPLY.toString(),
    });
  });

  it('reads a bytes32 name and symbol (like MKR)', () => {
    const result = interpretProbe(
      outcomes({
        totalSupply: uint(SUPPLY),
        balanceOf: uint(0),
        decimals: uint(18),
        name: b32('Maker'),
        symbol: b32('MKR'),
      }),
      FULL,
    );
    expect(result).toEqual({
      kind: 'token',
      name: 'Maker',
      symbol: 'MKR',
      decimals: 18,
      totalSupply: SUPPLY.toString(),
    });
  });

  it('still reads a token whose name, symbol and decimals revert, and a zero supply (empty storage)', () => {
    expect(interpretProbe(outcomes({ totalSupply: uint(123), balanceOf: uint(0) }), FULL)).toEqual({
      kind: 'token',
      name: null,
      symbol: null,
      decimals: null,
      totalSupply: '123',
    });
    expect(
      interpretProbe(outcomes({ totalSupply: uint(0), balanceOf: uint(0) }), FULL),
    ).toMatchObject({ kind: 'token', totalSupply: '0' });
  });

  it('gives decimals null above 255 and keeps 0 and 255 (decimals declared uint256 read the same)', () => {
    const base = { totalSupply: uint(1), balanceOf: uint(0) };
    const decimalsOf = (d: bigint) => {
      const r = interpretProbe(outcomes({ ...base, decimals: uint(d) }), FULL);
      return r.kind === 'token' ? r.decimals : 'not a token';
    };
    expect(decimalsOf(0n)).toBe(0);
    expect(decimalsOf(18n)).toBe(18);
    expect(decimalsOf(255n)).toBe(255);
    expect(decimalsOf(256n)).toBeNull();
    expect(decimalsOf(2n ** 256n - 1n)).toBeNull();
  });

  it('accepts balanceOf or totalSupply that revert at first sight when the dispatcher routes them', () => {
    const balanceReverts = interpretProbe(outcomes({ totalSupply: uint(0) }), FULL);
    expect(balanceReverts).toMatchObject({ kind: 'token', totalSupply: '0' });
    const supplyReverts = interpretProbe(outcomes({ balanceOf: uint(0) }), FULL);
    expect(supplyReverts).toMatchObject({ kind: 'token', totalSupply: null });
    // Not routed and not answered: refused, naming the call.
    const refused = interpretProbe(
      outcomes({ totalSupply: uint(0) }),
      dispatch(SURFACE.totalSupply, SURFACE.transfer),
    );
    expect(refused).toMatchObject({ kind: 'not-token', missing: 'balanceOf(address)' });
  });

  it('refuses a staking pool: totalSupply and balanceOf answer, the dispatcher has no transfer', () => {
    const result = interpretProbe(
      outcomes({ totalSupply: uint(0), balanceOf: uint(0) }),
      dispatch(SURFACE.totalSupply, SURFACE.balanceOf),
    );
    expect(result).toEqual({
      kind: 'not-token',
      missing: 'transfer(address,uint256)',
      reason: 'transfer(address,uint256) is not in the dispatcher (the code)',
    });
  });

  it('without a readable dispatcher, lets a zero-amount transfer that returns a bool or nothing decide', () => {
    const base = { totalSupply: uint(1), balanceOf: uint(0) };
    expect(interpretProbe(outcomes({ ...base, transfer: uint(1) })).kind).toBe('token');
    expect(interpretProbe(outcomes({ ...base, transfer: uint(0) })).kind).toBe('token');
    // USDT-style: transfer returns nothing.
    expect(interpretProbe(outcomes({ ...base, transfer: '0x' })).kind).toBe('token');
    expect(interpretProbe(outcomes({ ...base }))).toMatchObject({
      kind: 'not-token',
      missing: 'transfer(address,uint256)',
    });
    expect(interpretProbe(outcomes({ ...base, transfer: uint(7) }))).toMatchObject({
      kind: 'not-token',
      missing: 'transfer(address,uint256)',
    });
  });

  it('recognises a Uniswap-V2-style pair by token0/token1 addresses', () => {
    const result = interpretProbe(
      outcomes({
        totalSupply: uint(10n ** 18n),
        balanceOf: uint(0),
        decimals: uint(18),
        name: str('Uniswap V2'),
        symbol: str('UNI-V2'),
        token0: addr(USDC),
        token1: addr(WETH),
        factory: addr(UNIV2_FACTORY),
      }),
      FULL,
    );
    expect(result).toEqual({
      kind: 'pair',
      token0: USDC.toLowerCase(),
      token1: WETH.toLowerCase(),
      factory: UNIV2_FACTORY.toLowerCase(),
      name: 'Uniswap V2',
      symbol: 'UNI-V2',
    });
  });

  it('reports a pair whose factory() reverts with factory null', () => {
    const result = interpretProbe(
      outcomes({
        totalSupply: uint(1),
        balanceOf: uint(0),
        token0: addr(USDC),
        token1: addr(WETH),
      }),
      FULL,
    );
    expect(result).toMatchObject({ kind: 'pair', factory: null });
  });

  it('is a plain token when only one of token0/token1 answers, or one is the zero address', () => {
    const base = { totalSupply: uint(1), balanceOf: uint(0), decimals: uint(18) };
    expect(interpretProbe(outcomes({ ...base, token0: addr(USDC) }), FULL).kind).toBe('token');
    expect(
      interpretProbe(outcomes({ ...base, token0: addr(USDC), token1: uint(0) }), FULL).kind,
    ).toBe('token');
    // A word that does not fit in 160 bits is no address.
    expect(
      interpretProbe(outcomes({ ...base, token0: addr(USDC), token1: uint(1n << 160n) }), FULL)
        .kind,
    ).toBe('token');
  });

  it('is not a token when totalSupply returns empty data, reverts, or is not a string, and is not routed', () => {
    const rest = {
      balanceOf: uint(0),
      decimals: uint(18),
      name: str('X'),
      symbol: str('X'),
      transfer: uint(1),
    };
    const routing = dispatch(SURFACE.balanceOf, SURFACE.transfer);
    const empty = interpretProbe(outcomes({ ...rest, totalSupply: '0x' }), routing);
    expect(empty).toMatchObject({ kind: 'not-token', missing: 'totalSupply()' });
    expect(empty.kind === 'not-token' && empty.reason).toMatch(/totalSupply/);
    expect(interpretProbe(outcomes({ ...rest }), routing).kind).toBe('not-token');
    expect(interpretProbe(outcomes({ ...rest, totalSupply: { ok: true, result: 42 } })).kind).toBe(
      'not-token',
    );
  });

  it('is not a token when balanceOf does not return a uint256 and is not routed', () => {
    const result = interpretProbe(
      outcomes({ totalSupply: uint(1), balanceOf: '0x', name: str('X'), transfer: uint(1) }),
    );
    expect(result.kind).toBe('not-token');
    expect(result.kind === 'not-token' && result.reason).toMatch(/balanceOf/);
  });

  it('is not a token when there are no outcomes at all', () => {
    expect(interpretProbe([]).kind).toBe('not-token');
    expect(interpretProbe([], FULL)).toMatchObject({ kind: 'token', totalSupply: null });
  });
});

describe('readUint', () => {
  it('decodes one word as a decimal string', () => {
    expect(readUint(uint(0))).toBe('0');
    expect(readUint(uint(SUPPLY))).toBe(SUPPLY.toString());
    expect(readUint(uint(2n ** 256n - 1n))).toBe((2n ** 256n - 1n).toString());
    expect(readUint(uint(255).toUpperCase().replace('0X', '0x'))).toBe('255');
  });

  it('reads the first word of a longer answer', () => {
    expect(readUint(abi.encode(['uint256', 'uint256'], [7, 9]))).toBe('7');
  });

  it('is null for anything that is not at least one hex word', () => {
    expect(readUint(null)).toBeNull();
    expect(readUint('')).toBeNull();
    expect(readUint('0x')).toBeNull();
    expect(readUint(`0x${'00'.repeat(31)}`)).toBeNull();
    expect(readUint(`0x${'zz'.repeat(32)}`)).toBeNull();
    expect(readUint('00'.repeat(33))).toBeNull();
  });
});

describe('readText', () => {
  it('decodes an ABI string', () => {
    expect(readText(str('Wrapped Ether'))).toBe('Wrapped Ether');
    expect(readText(str('Ünïcødé 🚀'))).toBe('Ünïcødé 🚀');
  });

  it('decodes a bytes32, with or without trailing zero padding', () => {
    expect(readText(b32('MKR'))).toBe('MKR');
    expect(readText(b32('Maker'))).toBe('Maker');
    expect(readText(hexlify(toUtf8Bytes('A'.repeat(32))))).toBe('A'.repeat(32));
  });

  it('gives U+FFFD for non-UTF-8 bytes32 instead of throwing, and keeps the valid characters', () => {
    // 0xff is never valid UTF-8; 0xc3 0x28 is a broken two-byte sequence.
    const hex = `0x${'ff4d4b52'.padEnd(64, '0')}`;
    expect(() => readText(hex)).not.toThrow();
    expect(readText(hex)).toBe('\uFFFDMKR');
    expect(readText(`0x${'41c32842'.padEnd(64, '0')}`)).toBe('A\uFFFD(B');
    // A truncated multi-byte sequence at the end.
    expect(readText(`0x${'4142e282'.padEnd(64, '0')}`)).toBe('AB\uFFFD');
  });

  it('strips control characters and surrounding whitespace', () => {
    expect(readText(str('\u0000Tok\u0007en\n'))).toBe('Token');
    expect(readText(str('  DOGE\u007f\u0085 '))).toBe('DOGE');
    expect(readText(b32('\tPEPE\r\n'))).toBe('PEPE');
  });

  it('is null when nothing printable remains', () => {
    expect(readText(str(''))).toBeNull();
    expect(readText(str('\u0001\u0002 \n'))).toBeNull();
    expect(readText(`0x${'0'.repeat(64)}`)).toBeNull();
  });

  it('truncates a very long string to 128 characters', () => {
    const long = 'ScamCoin'.repeat(100);
    const text = readText(str(long));
    expect(text).toHaveLength(128);
    expect(text).toBe(long.slice(0, 128));
  });

  it('is null for missing, empty, short or non-hex answers', () => {
    expect(readText(null)).toBeNull();
    expect(readText('0x')).toBeNull();
    expect(readText('0x4d4b52')).toBeNull();
    expect(readText(`0x${'gg'.repeat(32)}`)).toBeNull();
  });

  it('is null (no exception) for a malformed ABI string longer than one word', () => {
    // Offset word points far past the data.
    const garbage = `0x${'f'.repeat(64)}${'0'.repeat(64)}`;
    expect(() => readText(garbage)).not.toThrow();
    expect(readText(garbage)).toBeNull();
  });
});
