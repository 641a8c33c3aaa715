import { toBeHex } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnvilHandle, startAnvil } from '../../../app/embedded/index.ts';
import { loadArtifact } from '../../../contracts/artifacts.ts';
import { createRpcClient } from '../../../infra/rpc/index.ts';
import type { RpcClient } from '../../evm/rpc.ts';
import {
  eip1167Implementation,
  MAX_PROXY_HOPS,
  proxyFromCode,
  resolveProxy,
  SLOTS,
  wordToAddress,
} from './proxy.ts';

const clone = (implementation: string) =>
  `0x363d3d373d3d3d363d73${implementation.slice(2)}5af43d82803e903d91602b57fd5bf3`;
/** Runtime code answering every call with `address` (a beacon's implementation(), a custom getter); with a DELEGATECALL after the RETURN so that it counts as delegating. */
const answering = (address: string, delegates = false) =>
  `0x73${address.slice(2)}60005260206000f3${delegates ? 'f4' : ''}`;
const word = (address: string) => toBeHex(BigInt(address), 32);
const addr = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;

describe('proxy constants and code-only detection', () => {
  it('computes the standard slots', () => {
    // The values published in EIP-1967, EIP-1822 and OpenZeppelin's legacy proxies.
    expect(SLOTS.eip1967Implementation).toBe(
      '0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc',
    );
    expect(SLOTS.eip1967Beacon).toBe(
      '0xa3f0ad74e5423aebfd80d3ef4346578335a9a72aeaee59ff6cb3582b35133d50',
    );
    expect(SLOTS.eip1967Admin).toBe(
      '0xb53127684a568b3173ae13b9f8a6016e243e63b6e8ee1178d6a717850b5d6103',
    );
    expect(SLOTS.eip1822Proxiable).toBe(
      '0xc5f16f0fcc639fa48a6947836d9850f504798523bf8c9a3a87d5876cf622bcf7',
    );
    expect(SLOTS.ozImplementation).toBe(
      '0x7050c9e0f4ca769c69bd3a8ef740bc37934f8e2c036e5a723fd8ee048ed3f8c3',
    );
    expect(SLOTS.ozAdmin).toBe(
      '0x10d6a54a4754c8869d6886b5f5d7fbfa5b4522237ea5c60d11bc4e7a1ff9390b',
    );
  });

  it('reads the implementation of an EIP-1167 clone from its code', () => {
    const impl = '0xbebebebebebebebebebebebebebebebebebebebe';
    expect(eip1167Implementation(clone(impl))).toBe(impl);
    expect(proxyFromCode(clone(impl))).toMatchObject({
      is_proxy: true,
      kind: 'eip1167',
      implementation: impl,
      admin: null,
    });
    expect(proxyFromCode(loadArtifact('SimpleToken').deployedBytecode).is_proxy).toBe(false);
    expect(eip1167Implementation('0x')).toBeNull();
  });

  it('reads addresses from storage words', () => {
    expect(wordToAddress(word('0x00000000000000000000000000000000000000aa'))).toBe(
      '0x00000000000000000000000000000000000000aa',
    );
    expect(wordToAddress(toBeHex(0, 32))).toBeNull();
    expect(wordToAddress(toBeHex(1n << 200n, 32))).toBeNull();
    expect(wordToAddress('0x')).toBeNull();
    expect(wordToAddress(null)).toBeNull();
  });
});

describe('resolveProxy on Anvil', () => {
  let anvil: AnvilHandle;
  let rpc: RpcClient;
  const impl = addr(0x1001);
  const proxyCode = loadArtifact('TokenProxy').deployedBytecode;
  const implCode = loadArtifact('UpgradeableToken').deployedBytecode;
  const setCode = (a: string, code: string) => rpc.request('anvil_setCode', [a, code]);
  const setSlot = (a: string, slot: string, value: string) =>
    rpc.request('anvil_setStorageAt', [a, slot, value]);
  const resolve = async (a: string) =>
    resolveProxy(rpc, {
      address: a,
      code: await rpc.request<string>('eth_getCode', [a, 'latest']),
    });

  beforeAll(async () => {
    anvil = await startAnvil();
    rpc = createRpcClient({ urls: [anvil.rpcUrl], maxAttempts: 1 });
    await setCode(impl, implCode);
  });
  afterAll(async () => anvil?.stop());

  it('EIP-1967 implementation slot (the project TokenProxy), with the admin of a transparent proxy', async () => {
    const p = addr(0x2001);
    await setCode(p, proxyCode);
    await setSlot(p, SLOTS.eip1967Implementation, word(impl));
    const r = await resolve(p);
    expect(r.info).toMatchObject({
      is_proxy: true,
      kind: 'eip1967',
      implementation: impl,
      admin: null,
    });
    expect(r.implementationCode).toBe(implCode);
    await setSlot(p, SLOTS.eip1967Admin, word(addr(0xad)));
    expect((await resolve(p)).info).toMatchObject({
      kind: 'eip1967',
      admin: addr(0xad),
      evidence: [expect.objectContaining({ detail: expect.stringContaining('transparent') })],
    });
  });

  it('EIP-1967 beacon: the beacon answers implementation()', async () => {
    const p = addr(0x2002);
    const beacon = addr(0x3002);
    await setCode(p, proxyCode);
    await setCode(beacon, answering(impl));
    await setSlot(p, SLOTS.eip1967Beacon, word(beacon));
    expect((await resolve(p)).info).toMatchObject({
      kind: 'eip1967-beacon',
      implementation: impl,
      evidence: [expect.objectContaining({ detail: expect.stringContaining(beacon) })],
    });
  });

  it('EIP-1822 PROXIABLE slot and OpenZeppelin legacy slots', async () => {
    const uups = addr(0x2003);
    await setCode(uups, proxyCode);
    await setSlot(uups, SLOTS.eip1822Proxiable, word(impl));
    expect((await resolve(uups)).info).toMatchObject({ kind: 'eip1822', implementation: impl });
    const zos = addr(0x2004);
    await setCode(zos, proxyCode);
    await setSlot(zos, SLOTS.ozImplementation, word(impl));
    await setSlot(zos, SLOTS.ozAdmin, word(addr(0xad)));
    expect((await resolve(zos)).info).toMatchObject({
      kind: 'oz-transparent',
      implementation: impl,
      admin: addr(0xad),
    });
  });

  it('custom implementation() getter on a delegating contract', async () => {
    const p = addr(0x2005);
    await setCode(p, answering(impl, true));
    expect((await resolve(p)).info).toMatchObject({ kind: 'custom-getter', implementation: impl });
    // The same getter on a contract that never delegates is not a proxy.
    const q = addr(0x2006);
    await setCode(q, answering(impl, false));
    expect((await resolve(q)).info.is_proxy).toBe(false);
  });

  it('a clone of a proxy is followed to the logic; a loop is cut', async () => {
    const p = addr(0x2007);
    await setCode(p, proxyCode);
    await setSlot(p, SLOTS.eip1967Implementation, word(impl));
    const c = addr(0x2008);
    await setCode(c, clone(p));
    const r = await resolve(c);
    expect(r.hops.map((h) => h.kind)).toEqual(['eip1167', 'eip1967']);
    expect(r.info).toMatchObject({ kind: 'eip1167', implementation: impl });

    const a = addr(0x2009);
    const b = addr(0x200a);
    await setCode(a, proxyCode);
    await setCode(b, proxyCode);
    await setSlot(a, SLOTS.eip1967Implementation, word(b));
    await setSlot(b, SLOTS.eip1967Implementation, word(a));
    const loop = await resolve(a);
    expect(loop.hops.length).toBeLessThanOrEqual(MAX_PROXY_HOPS);
    expect(loop.info.evidence.map((e) => e.detail).join(' ')).toMatch(/loop/);
    expect(loop.implementationCode).toBeNull();
  });

  it('an implementation without code, and a plain contract with a written slot', async () => {
    const p = addr(0x200b);
    await setCode(p, proxyCode);
    await setSlot(p, SLOTS.eip1967Implementation, word(addr(0xdead01)));
    const r = await resolve(p);
    expect(r.info).toMatchObject({ is_proxy: true, implementation: addr(0xdead01) });
    expect(r.implementationCode).toBeNull();
    expect(r.info.evidence.map((e) => e.detail).join(' ')).toMatch(/no code/);
    // UpgradeableToken used directly writes the slot into its own storage: it does not delegate.
    const token = addr(0x200c);
    await setCode(token, implCode);
    await setSlot(token, SLOTS.eip1967Implementation, word(impl));
    expect((await resolve(token)).info.is_proxy).toBe(false);
  });
});
