import { loadArtifact } from '../contracts/artifacts.ts';
import { analyzeBytecode } from '../src/analysis/static.ts';
for (const n of ['SimpleToken','RenouncedToken','MintableToken','BlacklistToken','PausableToken','FixedTaxToken','TaxToken','HoneypotToken','TieredHoneypotToken','LaunchGuardToken','MaxTxToken','FakeRenounceToken','BalanceControlToken','UpgradeableToken','Bytes32Token','DisguisedMintToken','DisguisedBlacklistToken','DisguisedPauseToken','DisguisedFeeToken','DisguisedBalanceToken'] as const) {
  const a = analyzeBytecode(loadArtifact(n as any).deployedBytecode);
  console.log(n.padEnd(24), a.admin_functions.map((f) => `${f.signature}:${f.family}`).join('  '));
}
