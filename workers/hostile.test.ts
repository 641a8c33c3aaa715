import { eq } from 'drizzle-orm';
import { keccak256 } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Service } from '../app/service.ts';
import { loadArtifact } from '../contracts/artifacts.ts';
import { createDb, type DbHandle } from '../db/client.ts';
import { tokens } from '../db/schema.ts';
import { startTestChain, type TestChain } from '../test/support/chain.ts';
import { startTestService } from '../test/support/service.ts';
import {
  createTestDatabase,
  createTestRedis,
  eventually,
  type TestDatabase,
  type TestRedis,
} from '../test/support/services.ts';

/**
 * Hostile chain data through the real pipeline: a name() that burns all its gas, reverting
 * metadata, a non-UTF-8 symbol with control characters, a 64 KiB name, decimals that lie, and a
 * contract far above the 24 KiB code-size limit. Each must be recorded, cleaned, and never hang
 * or crash the stages.
 */

const ENORMOUS_CODE_BYTES = 120_000;
const SUPPLY = 10n ** 24n;

let chain: TestChain;
let database: TestDatabase;
let redis: TestRedis;
let handle: DbHandle;
let service: Service;
const addresses: Record<string, string> = {};

/** Init code that returns `runtime` as the contract's code (CODECOPY + RETURN), whatever its size. */
function initCodeFor(runtime: string): string {
  const body = runtime.slice(2);
  const size = (body.length / 2).toString(16).padStart(8, '0');
  const prefixLength = 15;
  return `0x63${size}80610${prefixLength.toString(16).padStart(3, '0')}6000396000f3${body}`;
}

beforeAll(async () => {
  [chain, database, redis] = await Promise.all([
    startTestChain({ extraArgs: ['--disable-code-size-limit', '--gas-limit', '100000000'] }),
    createTestDatabase(),
    createTestRedis(),
  ]);
  handle = createDb(database.url, { max: database.embedded ? 1 : 4 });
  addresses.burner = (await chain.deploy('GasBurnerToken', [SUPPLY])).address;
  addresses.badText = (await chain.deploy('BadTextToken', [SUPPLY])).address;
  addresses.liar = (await chain.deploy('LyingDecimalsToken', [SUPPLY])).address;
  // SimpleToken's runtime, padded with unreachable bytes far past the usual limit.
  const runtime = loadArtifact('SimpleToken').deployedBytecode + '00'.repeat(ENORMOUS_CODE_BYTES);
  const tx = await chain.signer.sendTransaction({
    data: initCodeFor(runtime),
    gasLimit: 90_000_000n,
  });
  const receipt = (await tx.wait())!;
  addresses.enormous = receipt.contractAddress!.toLowerCase();
  service = await startTestService({
    roles: ['worker', 'scanner'],
    database,
    redis,
    chain: chain.chainConfig(),
  });
}, 120_000);

afterAll(async () => {
  await service?.stop();
  await handle?.close();
  await Promise.all([chain?.stop(), database?.drop(), redis?.cleanup()]);
});

async function row(address: string) {
  return eventually(
    async () => {
      const [r] = await handle.db.select().from(tokens).where(eq(tokens.address, address));
      return r?.bytecodeHash ? r : undefined;
    },
    60_000,
    `token ${address} through the bytecode stage`,
  );
}

describe('hostile chain data', () => {
  it('records a token whose name() burns all gas and whose other metadata reverts', async () => {
    const r = await row(addresses.burner!);
    expect(r).toMatchObject({
      name: null,
      symbol: null,
      decimals: null,
      totalSupply: SUPPLY.toString(),
    });
  });

  it('cleans a non-UTF-8 symbol with control characters and caps a 64 KiB name', async () => {
    const r = await row(addresses.badText!);
    expect(r.name).toHaveLength(128);
    expect(r.name!.startsWith('ABCDEFGHIJ')).toBe(true);
    expect(r.symbol).toBeTruthy();
    expect(r.symbol).not.toMatch(/\p{Cc}/u);
    expect(r.symbol).toContain('\ufffd');
    expect(r.symbol).toContain('BAD');
  });

  it('ignores decimals that do not fit a uint8', async () => {
    const r = await row(addresses.liar!);
    expect(r).toMatchObject({ name: 'Liar', symbol: 'LIE', decimals: null });
  });

  it('handles code far above the size limit', async () => {
    const r = await row(addresses.enormous!);
    const code = await chain.provider.getCode(addresses.enormous!);
    expect(r.codeLength).toBe((code.length - 2) / 2);
    expect(r.codeLength).toBeGreaterThan(ENORMOUS_CODE_BYTES);
    expect(r.bytecodeHash).toBe(keccak256(code));
  });
});
