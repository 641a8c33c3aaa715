import { ContractFactory } from 'ethers';
import { loadBackdoors } from '../test/support/backdoors.ts';
import { startTestChain } from '../test/support/chain.ts';
const chain = await startTestChain();
const e = loadBackdoors().find((x) => x.id === process.argv[2])!;
const f = new ContractFactory(e.abi as any, e.creation_bytecode, chain.signer);
const c = await f.deploy(...e.constructor_args); await new Promise((r) => setTimeout(r, 500));
const a = await c.getAddress();
for (let i = 0; i < 40; i++) { const w = await chain.provider.getStorage(a, i); if (BigInt(w) !== 0n) console.log(i, w); }
console.log('owner()', await chain.provider.call({ to: a, data: '0x8da5cb5b' }).catch((x) => 'err'));
await chain.stop();
