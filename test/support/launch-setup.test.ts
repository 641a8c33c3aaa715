import { parseEther } from 'ethers';
import { describe, expect, it } from 'vitest';
import { parseLaunchSetup, SETUP_HOLDERS } from './launch-setup.ts';

const DEPLOYER = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
const NOTES_DEPLOYER = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const OTHER = '0x9532014dadb2c980e43fe4665c86c2c0b1b4603d';

const steps = (notes: string) =>
  parseLaunchSetup(notes, DEPLOYER).steps.map((s) => ({
    from: s.from,
    signature: s.signature,
    args: s.args,
    value: s.value,
  }));
const call = (signature: string, args: unknown[], from: string | null = null) => ({
  from,
  signature,
  args,
  value: 0n,
});
const sends = (amount: bigint) =>
  SETUP_HOLDERS.map((h) => call('transfer(address,uint256)', [h, amount]));

describe('parseLaunchSetup', () => {
  it('gives nothing without the setup sentence, and ignores calls named before it', () => {
    expect(steps('Not tested: mintTokens(address,uint256) ["0x1", "2"] is gated.')).toEqual([]);
  });

  it('keeps the recorded order, substitutes the deployer, and reads nested JSON arguments', () => {
    const notes =
      `Review: see release(). Setup used for on-chain checks: deployer funded by allocateTokens(address[],uint256[]) [["${NOTES_DEPLOYER}"],["1000"]]; ` +
      `deployer transfers enabled: roles setTransferAgent(address,bool) ["${NOTES_DEPLOYER}",true], setReleaseAgent(address) ["${NOTES_DEPLOYER}"]; ` +
      'deployer sent 100 base units to each of two holders; holder transfers enabled: releaseTokenTransfer() []. ' +
      `Address-typed constructor arguments equal to ${NOTES_DEPLOYER} are the deployer used here; substitute your own deployer.`;
    expect(steps(notes)).toEqual([
      call('allocateTokens(address[],uint256[])', [[DEPLOYER], ['1000']]),
      call('setTransferAgent(address,bool)', [DEPLOYER, true]),
      call('setReleaseAgent(address)', [DEPLOYER]),
      ...sends(100n),
      call('releaseTokenTransfer()', []),
    ]);
  });

  it('reads the `: ok` suffix, `<deployer>`, strings with brackets and an impersonated sender', () => {
    const notes =
      'Setup used for on-chain checks: mintTokens(address,uint256) ["<deployer>","5"]: ok; ' +
      `mint(address,uint256) ["${NOTES_DEPLOYER}","7"] called from ${OTHER} (privileged address set in the source, impersonated); ` +
      'lockUntil(uint256,string) ["0","a]b, [c"]; deployer sent 3 base units to each of two holders.';
    expect(steps(notes)).toEqual([
      call('mintTokens(address,uint256)', [DEPLOYER, '5']),
      call('mint(address,uint256)', [DEPLOYER, '7'], OTHER),
      call('lockUntil(uint256,string)', ['0', 'a]b, [c']),
      ...sends(3n),
    ]);
  });

  it('funds the deployer from a source holder with what it then sends, before the sends', () => {
    const notes = `Setup used for on-chain checks: owner role held by ${OTHER} (set in the source, not the deployer): impersonated for owner calls; deployer funded by the holder set in the source ${OTHER} (impersonated transfer); deployer sent 50 base units to each of two holders.`;
    expect(steps(notes)).toEqual([
      call('transfer(address,uint256)', [DEPLOYER, 100n], OTHER),
      ...sends(50n),
    ]);
  });

  it('records a funding whose amount is not recorded as skipped', () => {
    const notes = `Setup used for on-chain checks: deployer funded by the holder set in the source ${OTHER} (impersonated transfer). deployer cannot transfer tokens to a holder.`;
    const setup = parseLaunchSetup(notes, DEPLOYER);
    expect(setup.steps).toEqual([]);
    expect(setup.skipped).toHaveLength(1);
  });

  it('reads a purchase: the call, then the ETH sent to the token', () => {
    const notes =
      'Setup used for on-chain checks: deployer bought tokens: openIco(), sent 1.0 ETH; deployer sent 9 base units to each of two holders.';
    expect(steps(notes)).toEqual([
      call('openIco()', []),
      { from: null, signature: null, args: [], value: parseEther('1') },
      ...sends(9n),
    ]);
  });
});
