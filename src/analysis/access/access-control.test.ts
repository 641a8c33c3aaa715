import { AbiCoder, id } from 'ethers';
import { describe, expect, it } from 'vitest';
import { loadArtifact } from '../../../contracts/artifacts.ts';
import { RpcError } from '../../evm/rpc.ts';
import { extractFunctions } from '../bytecode/index.ts';
import { selectorOf } from '../catalog/index.ts';
import type { ExtractedFunction } from '../types.ts';
import {
  bytecodeVerdict,
  type CallOutcome,
  combineVerdicts,
  describeRevert,
  isExecutionFailure,
  STRANGER,
  simulationVerdict,
} from './access-control.ts';
import { prepareCode } from './caller-checks.ts';

const fn: ExtractedFunction = {
  selector: selectorOf('mint(address,uint256)'),
  arguments: 'address,uint256',
  state_mutability: 'nonpayable',
};
const label = 'mint(address,uint256) (0x40c10f19)';
const OWNER = '0x00000000000000000000000000000000000000aa';
const errorString = (reason: string) =>
  `0x08c379a0${AbiCoder.defaultAbiCoder().encode(['string'], [reason]).slice(2)}`;
const ok: CallOutcome = { ok: true, revert: null, error: null };
const reverted = (data: string): CallOutcome => ({ ok: false, revert: data, error: null });
const failed: CallOutcome = { ok: false, revert: null, error: 'timeout' };
const NOT_OWNER = errorString('not owner');

function verdictOf(name: 'MintableToken' | 'SimpleToken', signature: string) {
  const code = loadArtifact(name).deployedBytecode;
  const f = extractFunctions(code).functions.find((x) => x.selector === selectorOf(signature))!;
  return bytecodeVerdict(prepareCode(code.slice(2)), f, signature);
}

describe('simulationVerdict', () => {
  it("a stranger's success on a state-changing function: none", () => {
    const v = simulationVerdict(fn, label, {
      stranger: [reverted(NOT_OWNER), ok],
      owner: [ok, ok],
      ownerAddress: OWNER,
    });
    expect(v.access).toBe('none');
    expect(v.evidence[0]!.detail).toContain(STRANGER);
    expect(v.evidence[0]!.detail).toContain('uint256 0'); // the variant that succeeded
  });

  it('stranger reverts, owner succeeds: owner-only; the owner failing for another reason too', () => {
    expect(
      simulationVerdict(fn, label, {
        stranger: [reverted(NOT_OWNER), reverted(NOT_OWNER)],
        owner: [ok, reverted('0x')],
        ownerAddress: OWNER,
      }).access,
    ).toBe('owner-only');
    const later = simulationVerdict(fn, label, {
      stranger: [reverted(NOT_OWNER), reverted(NOT_OWNER)],
      owner: [reverted(errorString('no code')), reverted(errorString('no code'))],
      ownerAddress: OWNER,
    });
    expect(later.access).toBe('owner-only');
    expect(later.evidence[0]!.detail).toContain('"no code"');
  });

  it('alike reverts, no owner, or node failures decide nothing', () => {
    const alike = simulationVerdict(fn, label, {
      stranger: [reverted(NOT_OWNER), reverted(NOT_OWNER)],
      owner: [reverted(NOT_OWNER), reverted(NOT_OWNER)],
      ownerAddress: OWNER,
    });
    expect(alike).toMatchObject({ access: null, strangerBlocked: true });
    expect(
      simulationVerdict(fn, label, {
        stranger: [reverted(NOT_OWNER), reverted(NOT_OWNER)],
        owner: null,
        ownerAddress: null,
      }),
    ).toMatchObject({ access: null, strangerBlocked: true });
    expect(
      simulationVerdict(fn, label, {
        stranger: [failed, failed],
        owner: [ok, ok],
        ownerAddress: OWNER,
      }),
    ).toMatchObject({ access: null, strangerBlocked: false });
  });
});

describe('combineVerdicts', () => {
  const owned = verdictOf('MintableToken', 'mint(address,uint256)');
  const open = verdictOf('SimpleToken', 'approve(address,uint256)');

  it('the bytecode alone', () => {
    expect(owned.access).toBe('owner-only');
    expect(open.access).toBe('none');
    expect(combineVerdicts(owned, null).access).toBe('owner-only');
  });

  it('a conclusive simulation wins, and both judgements stay in the evidence', () => {
    const none = combineVerdicts(owned, {
      access: 'none',
      evidence: [{ kind: 'simulation', detail: 'x' }],
      strangerBlocked: false,
    });
    expect(none.access).toBe('none');
    expect(none.evidence.map((e) => e.kind)).toEqual(['simulation', 'bytecode']);
    const roleKept = combineVerdicts(
      { ...owned, access: 'role' },
      { access: 'owner-only', evidence: [], strangerBlocked: true },
    );
    expect(roleKept.access).toBe('role');
  });

  it('no caller check in the code, yet a stranger is refused: unknown', () => {
    expect(
      combineVerdicts(open, { access: null, evidence: [], strangerBlocked: true }).access,
    ).toBe('unknown');
  });
});

describe('revert data and EVM failures', () => {
  it('decodes Error(string) and Panic(uint256)', () => {
    expect(describeRevert(errorString('Owned: caller is not the owner'))).toBe(
      '"Owned: caller is not the owner"',
    );
    expect(describeRevert(`0x4e487b71${(0x11).toString(16).padStart(64, '0')}`)).toBe('panic 0x11');
    expect(describeRevert('0x')).toBe('empty revert');
    expect(describeRevert(id('Custom()').slice(0, 10))).toMatch(/^revert data 0x/);
  });

  it('treats halts as answers, node failures as failures', () => {
    expect(isExecutionFailure(new RpcError('revert', 'execution reverted'))).toBe(true);
    expect(isExecutionFailure(new RpcError('server', 'EVM error InvalidJump'))).toBe(true);
    expect(isExecutionFailure(new RpcError('server', 'invalid jump destination'))).toBe(true);
    expect(isExecutionFailure(new RpcError('server', 'header not found'))).toBe(false);
    expect(isExecutionFailure(new RpcError('timeout', 'no answer within 10000 ms'))).toBe(false);
  });
});
