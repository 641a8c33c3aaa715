import { toBeHex } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnvilHandle, startAnvil } from '../../../app/embedded/index.ts';
import { loadArtifact } from '../../../contracts/artifacts.ts';
import { createRpcClient } from '../../../infra/rpc/index.ts';
import { compileSolidity } from '../../../test/support/solc.ts';
import type { RpcClient } from '../../evm/rpc.ts';
import { addressFromLabel } from '../bytecode/index.ts';
import { selectorOf } from '../catalog/index.ts';
import { probeCalls, probeRequests, STRANGER } from './access-control.ts';
import {
  DEAD_ADDRESSES,
  decodeAddress,
  isDeadAddress,
  ownershipInfo,
  proveHiddenOwner,
  readOwner,
  storageCandidates,
} from './ownership.ts';
import { SLOTS } from './proxy.ts';

const addr = (n: bigint | number) => `0x${n.toString(16).padStart(40, '0')}`;
const word = (n: bigint | number | string) => toBeHex(BigInt(n), 32);
const OWNER_SLOT = word(5); // Owned._owner in the project contracts (after the ERC-20 state)
// Real addresses look random; the storage scan relies on that to tell them from numbers.
const DEPLOYER = addressFromLabel('ownership.test.deployer');
const OTHER = addressFromLabel('ownership.test.other');

describe('ownership helpers', () => {
  it('knows the addresses nobody controls', () => {
    expect(DEAD_ADDRESSES.size).toBeGreaterThanOrEqual(4);
    for (const a of [
      '0x0000000000000000000000000000000000000000',
      '0x000000000000000000000000000000000000dEaD',
      '0xdead000000000000000042069420694206942069',
    ])
      expect(isDeadAddress(a)).toBe(true);
    expect(isDeadAddress(DEPLOYER)).toBe(false);
  });

  it('decodes address answers, zero included, and refuses others', () => {
    expect(decodeAddress(word(0))).toBe(addr(0));
    expect(decodeAddress(word(DEPLOYER))).toBe(DEPLOYER);
    expect(decodeAddress(word(1n << 170n))).toBeNull();
    expect(decodeAddress('0x')).toBeNull();
  });

  it('a renounce with a proven hidden owner is a fake renounce', () => {
    const reading = { owner: addr(0), source: 'owner()' as const, others: [], evidence: [] };
    expect(
      ownershipInfo(reading, { hidden_owner: null, selectors: [], evidence: [] }),
    ).toMatchObject({ renounced: true, fake_renounce: false });
    const fake = ownershipInfo(reading, {
      hidden_owner: DEPLOYER,
      selectors: ['aabbccdd'],
      evidence: [{ kind: 'simulation', detail: 'proof' }],
    });
    expect(fake).toMatchObject({ renounced: true, hidden_owner: DEPLOYER, fake_renounce: true });
    expect(fake.evidence.map((e) => e.detail).join(' ')).toMatch(/fake renounce/);
    // A second privileged address beside a live owner is a hidden admin, not a fake renounce.
    expect(
      ownershipInfo(
        { ...reading, owner: OTHER },
        { hidden_owner: DEPLOYER, selectors: [], evidence: [] },
      ),
    ).toMatchObject({ renounced: false, fake_renounce: false, hidden_owner: DEPLOYER });
  });
});

describe('ownership on Anvil', () => {
  let anvil: AnvilHandle;
  let rpc: RpcClient;
  const setCode = (a: string, code: string) => rpc.request('anvil_setCode', [a, code]);
  const setSlot = (a: string, slot: string, value: string) =>
    rpc.request('anvil_setStorageAt', [a, slot, value]);

  beforeAll(async () => {
    anvil = await startAnvil();
    rpc = createRpcClient({ urls: [anvil.rpcUrl], maxAttempts: 2 });
  });
  afterAll(async () => anvil?.stop());

  it('reads owner(), and the EIP-1967 admin slot when there is no getter', async () => {
    const token = addr(0x5001);
    await setCode(token, loadArtifact('MintableToken').deployedBytecode);
    await setSlot(token, OWNER_SLOT, word(DEPLOYER));
    expect(await readOwner(rpc, { address: token })).toMatchObject({
      owner: DEPLOYER,
      source: 'owner()',
      others: [],
    });

    const proxy = addr(0x5002);
    await setCode(proxy, loadArtifact('TokenProxy').deployedBytecode);
    await setSlot(proxy, SLOTS.eip1967Admin, word(OTHER));
    // The proxy delegates owner() to nothing (no implementation): it fails; the admin slot answers.
    expect(await readOwner(rpc, { address: proxy })).toMatchObject({
      owner: OTHER,
      source: 'admin-slot',
    });

    const plain = addr(0x5003);
    await setCode(plain, loadArtifact('SimpleToken').deployedBytecode);
    expect(await readOwner(rpc, { address: plain })).toMatchObject({ owner: null, source: null });
  });

  it('finds address-like values in the first slots and in slots the code compares with the caller', async () => {
    const a = addr(0x5004);
    await setCode(a, loadArtifact('SimpleToken').deployedBytecode);
    await setSlot(a, word(2), word(10n ** 24n)); // a supply: a number, not an address
    await setSlot(a, word(3), word(DEPLOYER));
    await setSlot(a, word(4), word((1n << 160n) | BigInt(OTHER))); // packed: a flag above an address
    await setSlot(a, word(0x99), word(BigInt(OTHER) << 8n)); // packed after a bool, compared in the code
    const found = await storageCandidates(rpc, {
      address: a,
      privilegedSlots: [{ slot: '0x99', shift: 8 }],
    });
    expect(found).toEqual([
      { address: OTHER, source: 'storage slot 0x99, which the code compares with the caller' },
      { address: DEPLOYER, source: 'storage slot 0x3' },
      { address: OTHER, source: 'storage slot 0x4' },
    ]);
  });

  it('proves a hidden owner only by a call that a stranger cannot make', async () => {
    const token = addr(0x5005);
    await setCode(token, loadArtifact('FakeRenounceToken').deployedBytecode);
    const hiddenMint = selectorOf('distributeRewards(address,uint256)');
    const fn = {
      selector: hiddenMint,
      arguments: 'address,uint256',
      state_mutability: 'nonpayable' as const,
    };
    // The owner slot holds DEPLOYER: a candidate that is the owner can mint; a random one cannot.
    await setSlot(token, OWNER_SLOT, word(DEPLOYER));
    const gated = [
      { fn, stranger: await probeCalls(rpc, probeRequests(token, STRANGER, fn), 'latest') },
    ];
    expect(gated[0]!.stranger.every((o) => !o.ok && o.revert)).toBe(true);
    const proven = await proveHiddenOwner(rpc, {
      address: token,
      candidates: [
        { address: OTHER, source: 'storage slot 0x3' },
        { address: DEPLOYER, source: 'storage slot 0x5' },
      ],
      gated,
    });
    expect(proven.hidden_owner).toBe(DEPLOYER);
    expect(proven.selectors).toEqual([hiddenMint]);
    expect(proven.evidence[0]!.detail).toMatch(
      /eth_call succeeds from it and reverts for a stranger/,
    );
    const none = await proveHiddenOwner(rpc, {
      address: token,
      candidates: [{ address: addressFromLabel('ownership.test.nobody'), source: 'nowhere' }],
      gated,
    });
    expect(none.hidden_owner).toBeNull();
  });

  it('does not take a caller that passes the check and then fails for another reason as proof', async () => {
    // A fee wallet in slot 0: past its check, the swap fails (nothing to swap). A stranger fails
    // at the check itself, with another reason. A guess of privilege, not proof.
    const { FeeWallet } = compileSolidity(`
      pragma solidity ^0.8.20;
      contract FeeWallet {
        address private wallet;
        function manualSwap(uint256 amount) external {
          require(msg.sender == wallet, "not the fee wallet");
          require(amount > 1000, "nothing to swap");
        }
      }`);
    const token = addr(0x5006);
    await setCode(token, FeeWallet!.deployedBytecode);
    await setSlot(token, word(0), word(DEPLOYER));
    const fn = {
      selector: selectorOf('manualSwap(uint256)'),
      arguments: 'uint256',
      state_mutability: 'nonpayable' as const,
    };
    const gated = [
      { fn, stranger: await probeCalls(rpc, probeRequests(token, STRANGER, fn), 'latest') },
    ];
    const fromWallet = await probeCalls(rpc, probeRequests(token, DEPLOYER, fn), 'latest');
    // The wallet's calls revert, and for another reason than the stranger's.
    expect(fromWallet.every((o) => !o.ok && o.revert !== null)).toBe(true);
    expect(fromWallet[0]!.revert).not.toBe(gated[0]!.stranger[0]!.revert);
    const result = await proveHiddenOwner(rpc, {
      address: token,
      candidates: [{ address: DEPLOYER, source: 'storage slot 0x0' }],
      gated,
    });
    expect(result).toEqual({ hidden_owner: null, selectors: [], evidence: [] });
  });

  it('proves a caller whose call succeeds once a running time lock has expired', async () => {
    const { TimeLocked } = compileSolidity(`
      pragma solidity ^0.8.20;
      contract TimeLocked {
        address private previousOwner;
        uint256 private unlockAt;
        function unlock() external {
          require(msg.sender == previousOwner, "no permission");
          require(block.timestamp > unlockAt, "still locked");
        }
      }`);
    const token = addr(0x5007);
    await setCode(token, TimeLocked!.deployedBytecode);
    await setSlot(token, word(0), word(DEPLOYER));
    // Locked for 30 days from now.
    await setSlot(token, word(1), word(Math.floor(Date.now() / 1000) + 30 * 86_400));
    const fn = {
      selector: selectorOf('unlock()'),
      arguments: '',
      state_mutability: 'nonpayable' as const,
    };
    const gated = [
      { fn, stranger: await probeCalls(rpc, probeRequests(token, STRANGER, fn), 'latest') },
    ];
    const result = await proveHiddenOwner(rpc, {
      address: token,
      candidates: [
        { address: OTHER, source: 'storage slot 0x9' },
        { address: DEPLOYER, source: 'storage slot 0x0' },
      ],
      gated,
    });
    expect(result.hidden_owner).toBe(DEPLOYER);
    expect(result.selectors).toEqual([fn.selector]);
    expect(result.evidence[0]!.detail).toMatch(/once a time lock runs out/);
  });
});
