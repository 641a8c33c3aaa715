import { id } from 'ethers';
import { beforeAll, describe, expect, it } from 'vitest';
import { type ContractName, loadArtifact } from '../../../contracts/artifacts.ts';
import { type Compiled, compileSolidity } from '../../../test/support/solc.ts';
import { extractFunctions, probeCalldata } from '../bytecode/index.ts';
import { selectorOf } from '../catalog/index.ts';
import { prepareCode, type WalkResult, walkFunction } from './caller-checks.ts';

/** Shapes of access control the project's own contracts lack, compiled with the project's solc. */
const SOURCE = `
pragma solidity ^0.8.20;
contract RoleGated {
    mapping(bytes32 => mapping(address => bool)) private _roles;
    bytes32 public constant MINTER_ROLE = keccak256("MINTER_ROLE");
    uint256 public supply;
    function mint(address, uint256 amount) external { require(_roles[MINTER_ROLE][msg.sender], "role"); supply += amount; }
}
contract HardcodedAdmin {
    address private constant ADMIN = 0x1234567890AbcdEF1234567890aBcdef12345678;
    bool public paused;
    function pause() external { require(msg.sender == ADMIN, "admin"); paused = true; }
}
contract OriginOwner {
    address private _owner = msg.sender;
    uint256 public fee;
    function setFee(uint256 f) external { require(tx.origin == _owner, "origin"); fee = f; }
}
contract PackedOwner {
    bool public flag;
    address private _owner = msg.sender;
    uint256 public fee;
    function setFee(uint256 f) external { require(msg.sender == _owner, "owner"); fee = f; }
}
interface IRegistry { function owner() external view returns (address); }
contract RegistryOwned {
    IRegistry private _registry;
    uint256 public fee;
    function setFee(uint256 f) external { require(msg.sender == _registry.owner(), "registry"); fee = f; }
}
interface IAuth { function hasRole(bytes32, address) external view returns (bool); }
contract ExternalAuth {
    IAuth private _auth;
    bool public paused;
    function pause() external { require(_auth.hasRole(bytes32(0), msg.sender), "auth"); paused = true; }
}
contract AdminList {
    mapping(address => bool) private _admins;
    uint256 public fee;
    function setFee(uint256 f) external { require(_admins[msg.sender], "admin"); fee = f; }
}
contract Open {
    mapping(address => uint256) public balanceOf;
    function mint(address to, uint256 amount) external { balanceOf[to] += amount; }
}
contract Looping {
    address private _owner = msg.sender;
    uint256[] private _values;
    function setFees(uint256[] calldata values) external {
        require(msg.sender == _owner, "owner");
        for (uint256 i = 0; i < values.length; i++) _values.push(values[i]);
    }
}
`;

let compiled: Record<string, Compiled>;
let viaIr: Record<string, Compiled>;

function walk(code: string, signature: string, budget?: number): WalkResult {
  const selector = selectorOf(signature);
  const fn = extractFunctions(code).functions.find((f) => f.selector === selector);
  if (!fn) throw new Error(`${signature} not in the dispatcher`);
  return walkFunction(
    prepareCode(code.slice(2)),
    probeCalldata(fn.selector, fn.arguments, 'ones'),
    budget,
  );
}
const artifact = (name: ContractName) => loadArtifact(name).deployedBytecode;

beforeAll(() => {
  compiled = compileSolidity(SOURCE);
  viaIr = compileSolidity(SOURCE, { viaIR: true });
});

describe('caller checks in the project contracts', () => {
  it('onlyOwner: the caller compared with the owner slot', () => {
    const r = walk(artifact('MintableToken'), 'mint(address,uint256)');
    expect(r.checks).toEqual([
      expect.objectContaining({ kind: 'stored-address', slot: '0x5', shift: 0 }),
    ]);
    expect(r.complete).toBe(true);
    expect(r.unguardedStateChange).toBe(false);
  });

  it('FakeRenounceToken: both the owner slot and the hidden admin slot', () => {
    const shadowSlot = `0x${(BigInt(id('fake.renounce.shadow.admin')) - 1n).toString(16)}`;
    const code = artifact('FakeRenounceToken');
    const hidden = extractFunctions(code).functions.find(
      (f) => f.arguments === 'address,uint256' && !['095ea7b3', 'a9059cbb'].includes(f.selector),
    )!;
    const r = walkFunction(
      prepareCode(code.slice(2)),
      probeCalldata(hidden.selector, hidden.arguments, 'ones'),
    );
    expect(r.checks.map((c) => c.slot)).toEqual(['0x5', shadowSlot]);
  });

  it('a standard approve changes state with no caller check', () => {
    const r = walk(artifact('SimpleToken'), 'approve(address,uint256)');
    expect(r.checks).toEqual([]);
    expect(r.unguardedStateChange).toBe(true);
    expect(r.complete).toBe(true);
  });
});

describe.each([
  ['legacy codegen', () => compiled],
  ['via-IR', () => viaIr],
] as const)('caller checks (%s)', (_, contracts) => {
  const code = (name: string) => contracts()[name]!.deployedBytecode;

  it('role table: mapping keyed by role and caller', () => {
    expect(walk(code('RoleGated'), 'mint(address,uint256)').checks.map((c) => c.kind)).toEqual([
      'role-mapping',
    ]);
  });
  it('address written into the code', () => {
    expect(walk(code('HardcodedAdmin'), 'pause()').checks).toEqual([
      expect.objectContaining({
        kind: 'hardcoded-address',
        address: '0x1234567890abcdef1234567890abcdef12345678',
      }),
    ]);
  });
  it('tx.origin compared with a stored address', () => {
    expect(walk(code('OriginOwner'), 'setFee(uint256)').checks).toEqual([
      expect.objectContaining({ kind: 'stored-address', slot: '0x0', origin: true }),
    ]);
  });
  it('an owner packed after a bool: slot 0, shifted by 8 bits', () => {
    expect(walk(code('PackedOwner'), 'setFee(uint256)').checks).toEqual([
      expect.objectContaining({ kind: 'stored-address', slot: '0x0', shift: 8 }),
    ]);
  });
  it('caller compared with an address another contract returns', () => {
    expect(walk(code('RegistryOwned'), 'setFee(uint256)').checks.map((c) => c.kind)).toEqual([
      'external-address',
    ]);
  });
  it('another contract asked about the caller', () => {
    expect(walk(code('ExternalAuth'), 'pause()').checks.map((c) => c.kind)).toEqual([
      'external-call',
    ]);
  });
  it('authorisation list keyed by the caller', () => {
    expect(walk(code('AdminList'), 'setFee(uint256)').checks.map((c) => c.kind)).toEqual([
      'caller-mapping',
    ]);
  });
  it('no check at all', () => {
    const r = walk(code('Open'), 'mint(address,uint256)');
    expect(r.checks).toEqual([]);
    expect(r.unguardedStateChange).toBe(true);
  });
  it('a loop after the check: the check is found and the walk stays bounded', () => {
    const r = walk(code('Looping'), 'setFees(uint256[])');
    expect(r.checks.map((c) => c.kind)).toEqual(['stored-address']);
  });
});

describe('bounds', () => {
  it('stops at its step budget and says so', () => {
    const r = walk(artifact('TaxToken'), 'transferFrom(address,address,uint256)', 200);
    expect(r.steps).toBeLessThanOrEqual(200);
    expect(r.complete).toBe(false);
  });

  it('survives garbage: stack underflow, bad jumps, undefined opcodes, truncated PUSH', () => {
    for (const code of ['56', '5757', '6000600056', 'fe', '0c0d0e', '7f01', '600035601c1c', '']) {
      const r = walkFunction(prepareCode(code), '0x12345678');
      expect(r.checks).toEqual([]);
    }
    // An endless loop without a symbolic branch is cut by the per-path step limit.
    const loop = walkFunction(prepareCode('5b600056'), '0x12345678');
    expect(loop.complete).toBe(false);
  });
});
