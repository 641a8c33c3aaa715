import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { Writable } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import { and, eq } from 'drizzle-orm';
import { ContractFactory, getAddress, type InterfaceAbi, toBeHex, zeroPadValue } from 'ethers';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type DbHandle } from '../../db/client.ts';
import { createAccountRepository } from '../../db/repositories/accounts.ts';
import { tokens } from '../../db/schema.ts';
import { createRedis } from '../../infra/redis.ts';
import { createProAccount, RAISED_LIMITS } from '../../test/support/accounts.ts';
import { closeServer, listen, request, testAppDeps } from '../../test/support/api.ts';
import { startTestChain, type TestChain } from '../../test/support/chain.ts';
import {
  createTestDatabase,
  createTestRedis,
  type TestDatabase,
  type TestRedis,
} from '../../test/support/services.ts';
import { createChainRuntimes } from '../../workers/chain-runtime.ts';
import { createProducer, type Producer } from '../../workers/queues.ts';
import { createApp } from '../app.ts';

/**
 * Token recognition through POST /api/tokens/{address}/refresh on real code: every labelled
 * mainnet token of test/fixtures/backdoors, its runtime code placed by anvil_setCode with empty
 * storage except the owner slot (as a held-out run submits them), is recognised as a token; a
 * staking pool with totalSupply and balanceOf but no transfer is refused, the reason logged; a
 * token whose surface forwards to a ledger not yet set (every call reverts) is recognised.
 */

interface BackdoorEntry {
  id: string;
  abi: InterfaceAbi;
  creation_bytecode: string;
  runtime_bytecode: string;
  constructor_args: unknown[];
}

const FIXTURE = new URL('../../test/fixtures/backdoors/backdoors.json.gz', import.meta.url);
/** Owner variables of these contracts live in the first few slots; 64 leaves a wide margin. */
const OWNER_SLOT_SCAN = 64;
const ADDRESS_MASK = (1n << 160n) - 1n;
/** Fresh addresses for the placed code, far from anything Anvil or the deployer uses. */
const PLACED_BASE = 0x7e57_0000n;

let chain: TestChain;
let database: TestDatabase;
let testRedis: TestRedis;
let handle: DbHandle;
let redis: ReturnType<typeof createRedis>;
let producerConnection: ReturnType<typeof createRedis>;
let producer: Producer;
let server: Server;
let base: string;
let auth: Record<string, string>;
const logLines: Record<string, unknown>[] = [];

beforeAll(async () => {
  [chain, database, testRedis] = await Promise.all([
    startTestChain(),
    createTestDatabase(),
    createTestRedis(),
  ]);
  handle = createDb(database.url, { max: database.embedded ? 1 : 4 });
  redis = createRedis(testRedis.url, 'commands');
  producerConnection = createRedis(testRedis.url, 'producer');
  producer = createProducer(producerConnection, testRedis.prefix);
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n'))
        if (line.trim()) logLines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const logger = pino({ level: 'info' }, sink);
  const config = chain.chainConfig();
  const app = createApp(
    testAppDeps({
      db: handle.db,
      redis,
      prefix: testRedis.prefix,
      knownChainIds: new Set([config.chainId]),
      producer,
      logger,
      chains: createChainRuntimes([config], logger),
    }),
  );
  ({ server, base } = await listen(app));
  // One refresh per contract: raise the key's windows so that the limit is not what is measured.
  const { apiKey } = await createProAccount(createAccountRepository(handle.db), {
    email: 'recognition@example.com',
    limits: RAISED_LIMITS,
  });
  auth = { authorization: `Bearer ${apiKey}` };
}, 120_000);

afterAll(async () => {
  await closeServer(server);
  await producer?.close();
  redis?.disconnect();
  producerConnection?.disconnect();
  await handle?.close();
  await database?.drop();
  await testRedis?.cleanup();
  await chain?.stop();
});

const refresh = (address: string) =>
  request(`${base}/api/tokens/${address}/refresh?chain_id=${chain.anvil.chainId}`, {
    method: 'POST',
    headers: auth,
  });
const rpc = <T>(method: string, params: unknown[]) =>
  chain.provider.send(method, params) as Promise<T>;

/** The slot where the deployed entry keeps its deployer (the owner), and the word stored there. */
async function ownerSlotOf(entry: BackdoorEntry): Promise<{ slot: string; word: string } | null> {
  const contract = await new ContractFactory(
    entry.abi,
    entry.creation_bytecode,
    chain.signer,
  ).deploy(...entry.constructor_args);
  const receipt = await rpc<{ contractAddress: string } | null>('eth_getTransactionReceipt', [
    contract.deploymentTransaction()!.hash,
  ]);
  const deployed = receipt!.contractAddress;
  const owner = BigInt(chain.account);
  for (let i = 0; i < OWNER_SLOT_SCAN; i++) {
    const slot = toBeHex(i, 32);
    const word = await rpc<string>('eth_getStorageAt', [deployed, slot, 'latest']);
    const value = BigInt(word);
    // An address packed at the low end of the slot (Solidity packs from the right).
    if ((value & ADDRESS_MASK) === owner) return { slot, word };
  }
  return null;
}

describe('token recognition of real mainnet code placed by anvil_setCode', () => {
  const entries = JSON.parse(gunzipSync(readFileSync(FIXTURE)).toString()) as BackdoorEntry[];

  it('recognises every labelled backdoor token as a token through the refresh path', async () => {
    expect(entries).toHaveLength(116);
    const refused: string[] = [];
    let withOwnerSlot = 0;
    for (const [i, entry] of entries.entries()) {
      const address = getAddress(toBeHex(PLACED_BASE + BigInt(i), 20)).toLowerCase();
      const owner = await ownerSlotOf(entry);
      await rpc('anvil_setCode', [address, entry.runtime_bytecode]);
      if (owner) {
        withOwnerSlot++;
        await rpc('anvil_setStorageAt', [address, owner.slot, zeroPadValue(owner.word, 32)]);
      }
      const r = await refresh(address);
      if (r.status !== 202) refused.push(`${entry.id} (${r.status} ${JSON.stringify(r.body)})`);
    }
    expect(refused).toEqual([]);
    // The placement really set owners: most of these tokens keep their owner in storage.
    expect(withOwnerSlot).toBeGreaterThan(entries.length / 2);
    const rows = await handle.db
      .select()
      .from(tokens)
      .where(and(eq(tokens.chainId, chain.anvil.chainId), eq(tokens.detectionSource, 'submitted')));
    expect(rows).toHaveLength(entries.length);
  }, 300_000);

  it('recognises a token whose every surface call reverts until its ledger is set: the dispatcher routes all three', async () => {
    const front = await chain.deploy('LedgerFrontToken', []);
    // The calls really revert: the probe cannot tell a token from what they answer.
    await expect(chain.provider.call({ to: front.address, data: '0x18160ddd' })).rejects.toThrow();
    const r = await refresh(front.address);
    expect(r.status).toBe(202);
    const [row] = await handle.db.select().from(tokens).where(eq(tokens.address, front.address));
    expect(row).toMatchObject({ detectionSource: 'submitted', totalSupply: null });
  });

  it('refuses a staking pool (totalSupply and balanceOf, no transfer) and logs which call is missing', async () => {
    const pool = await chain.deploy('StakingPool', [chain.uniswap.weth, chain.uniswap.weth]);
    const r = await refresh(pool.address);
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ error: 'Token not found' });
    const line = logLines.find(
      (l) => l.address === pool.address && l.msg === 'submitted contract refused: not a token',
    );
    expect(line).toMatchObject({
      chain: chain.anvil.chainId,
      missing: 'transfer(address,uint256)',
    });
    expect(String(line?.reason)).toMatch(/transfer\(address,uint256\) is not in the dispatcher/);
    const rows = await handle.db.select().from(tokens).where(eq(tokens.address, pool.address));
    expect(rows).toEqual([]);
  });
});
