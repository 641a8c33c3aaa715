import { and, desc, eq } from 'drizzle-orm';
import { AbiCoder, Contract, Interface, keccak256, parseEther, toBeHex, Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completeToken } from '../api/token-schemas.ts';
import {
  ANVIL_PRIVATE_KEYS,
  createDemoLauncher,
  type DemoLauncher,
  deployDevTether,
  type LaunchedToken,
} from '../app/embedded/index.ts';
import type { Service } from '../app/service.ts';
import { loadArtifact } from '../contracts/artifacts.ts';
import { createDb, type DbHandle } from '../db/client.ts';
import { assembleComplete } from '../db/repositories/complete.ts';
import { createHolderRepository } from '../db/repositories/holders.ts';
import { createTokenRepository } from '../db/repositories/tokens.ts';
import { analyses, tokens } from '../db/schema.ts';
import { startTestChain, type TestChain, waitMined } from '../test/support/chain.ts';
import { startTestService } from '../test/support/service.ts';
import {
  createTestDatabase,
  createTestRedis,
  eventually,
  type TestDatabase,
  type TestRedis,
} from '../test/support/services.ts';

/**
 * The peers' questions on a real chain, through the whole pipeline: a token that traps its early
 * buyers but lets a fresh buyer sell is a honeypot by its real holders' sells (the trapped buyers
 * as evidence) while an honest token's holders all sell; a copy of the chain's USDT is flagged;
 * the complete token object carries holders, LP holders, the sells and the look-alike.
 */

const CHAIN = 31337;
const erc20 = new Interface(loadArtifact('SimpleToken').abi);

let chain: TestChain;
let database: TestDatabase;
let redis: TestRedis;
let handle: DbHandle;
let service: Service;
let launcher: DemoLauncher;
let tether: string;
/** The head the holder balances had caught up with before the resimulations (second test). */
let caughtUp = 0;

const rpc = <T>(method: string, params: unknown[] = []) =>
  chain.provider.send(method, params) as Promise<T>;

beforeAll(async () => {
  [chain, database, redis] = await Promise.all([
    startTestChain(),
    createTestDatabase(),
    createTestRedis(),
  ]);
  handle = createDb(database.url, { max: database.embedded ? 1 : 4 });
  tether = (await deployDevTether(chain.signer)).toLowerCase();
  service = await startTestService({
    roles: ['worker', 'scanner'],
    database,
    redis,
    chain: chain.chainConfig({
      stablecoins: [tether],
      knownTokens: [{ symbol: 'USDT', name: 'Tether USD', address: tether }],
    }),
  });
}, 120_000);

afterAll(async () => {
  await launcher?.stop();
  await service?.stop();
  await handle?.close();
  await Promise.all([chain?.stop(), database?.drop(), redis?.cleanup()]);
});

const row = async (address: string) =>
  (
    await handle.db
      .select()
      .from(tokens)
      .where(and(eq(tokens.chainId, CHAIN), eq(tokens.address, address)))
  )[0];

/** The token's simulation once it ran against a pool (first liquidity). */
const simulatedWithPool = async (address: string) => {
  try {
    return await eventually(
      async () => {
        const sim = (await row(address))?.tradingSimulation as { pool?: unknown } | null;
        return sim?.pool ? sim : undefined;
      },
      90_000,
      `${address} simulated against its pool`,
    );
  } catch (error) {
    // What the pipeline got to, so that a failure says which pass never came.
    const r = await row(address);
    const sim = r?.tradingSimulation as { error?: string | null } | null;
    throw new Error(
      `${(error as Error).message} (stage ${r?.stage}, liquidity since ${r?.initialLiquidityAt?.toISOString() ?? 'never'}, simulation ${sim ? `error ${sim.error}` : 'none'}, risk at ${r?.riskUpdatedAt?.toISOString() ?? 'never'})`,
    );
  }
};

describe("real holders' sells and look-alikes", () => {
  let trap: LaunchedToken;
  let honest: LaunchedToken;
  let lookalike: LaunchedToken;

  it('launches an early trap, an honest token with holders and a USDT look-alike', async () => {
    // A launcher per attempt: a retry must not reuse a nonce manager that the transfers below
    // (sent from the same account outside it) left behind.
    await launcher?.stop();
    launcher = createDemoLauncher({
      rpcUrl: chain.anvil.rpcUrl,
      privateKey: ANVIL_PRIVATE_KEYS[1],
      uniswap: chain.uniswap,
    });
    trap = await launcher.launchOne('early-trap', { liquidity: true, buy: false });
    expect(trap.buyers).toHaveLength(3);
    honest = await launcher.launchOne('simple', { liquidity: true, buy: false });
    lookalike = await launcher.launchOne('look-alike', { liquidity: true, buy: false });
    expect(lookalike.symbol).toBe('USDT');
    // Real holders of the honest token: wallets the launcher's account sends tokens to (after
    // the launches: the launcher's nonce manager does not see these transactions).
    const owner = new Wallet(ANVIL_PRIVATE_KEYS[1], chain.provider);
    const token = new Contract(honest.address, erc20, owner);
    for (let i = 0; i < 3; i++) {
      const holder = Wallet.createRandom().address;
      await waitMined(
        chain.provider,
        token.getFunction('transfer')(holder, parseEther(String(1_000 + i))),
      );
    }
    await Promise.all(
      [trap, honest, lookalike].map((t) => simulatedWithPool(t.address.toLowerCase())),
    );
  }, 180_000);

  it('finds the trap by its real holders once a fresh buyer can sell again', async () => {
    // Past the trap window: a fresh buyer is free, the early buyers are not.
    for (let i = 0; i < 15; i++) await rpc('evm_mine');
    const head = Number(await rpc<string>('eth_blockNumber'));
    const holders = createHolderRepository(handle.db);
    await eventually(
      async () => ((await holders.track(CHAIN, 'live'))?.blockNumber ?? 0) >= head || undefined,
      60_000,
      'holders caught up',
    );
    caughtUp = head;
    // The look-alike too: its pass's DEX stage rewrites its holders report at the caught-up head
    // (its first reports may predate the pool's Transfers, and no scheduler refreshes them here).
    for (const t of [trap, honest, lookalike])
      await service.resimulate(CHAIN, t.address.toLowerCase(), 'manual');
    const sellsOf = (address: string) =>
      eventually(
        async () => {
          const r = await row(address);
          const sim = r?.tradingSimulation as {
            holder_sells?: {
              block: number;
              failed: number;
              tried: number;
              failures: { address: string }[];
            };
            is_sellable?: boolean;
          } | null;
          // The pass's risk write follows the simulation in the same job: wait for both.
          return sim?.holder_sells && sim.holder_sells.block >= head && r?.riskUpdatedAt
            ? { r, sim, sells: sim.holder_sells }
            : undefined;
        },
        60_000,
        `holder sells of ${address}`,
      );

    const trapped = await sellsOf(trap.address.toLowerCase());
    expect(trapped.sim.is_sellable).toBe(true);
    expect(trapped.sells.tried).toBeGreaterThanOrEqual(3);
    expect(trapped.sells.failed).toBe(3);
    expect(trapped.sells.failures.map((f) => f.address).sort()).toEqual(
      trap.buyers!.map((b) => b.toLowerCase()).sort(),
    );
    await eventually(
      async () =>
        (await row(trap.address.toLowerCase()))?.currentRiskLevel === 'honeypot' ? true : undefined,
      30_000,
      'the trap scored a honeypot',
    );
    const [latest] = await handle.db
      .select()
      .from(analyses)
      .where(and(eq(analyses.chainId, CHAIN), eq(analyses.address, trap.address.toLowerCase())))
      .orderBy(desc(analyses.createdAt))
      .limit(1);
    const honeypot = (
      latest!.riskFactors as { code: string; evidence: { detail: string }[] }[]
    ).find((f) => f.code === 'honeypot');
    expect(honeypot?.evidence.map((e) => e.detail).join(' ')).toContain(
      trap.buyers![0]!.toLowerCase(),
    );

    const clean = await sellsOf(honest.address.toLowerCase());
    expect(clean.sells.tried).toBe(3);
    expect(clean.sells.failed).toBe(0);
    expect(clean.r?.isHoneypot).toBe(false);
  }, 180_000);

  it('finds a siphon: a balance that fell without a Transfer from its holder', async () => {
    const address = honest.address.toLowerCase();
    const holders = createHolderRepository(handle.db);
    const victim = (await holders.balances(CHAIN, address)).find(
      (h) => h.balance === parseEther('1001'),
    )!;
    expect(victim).toBeDefined();
    // ERC20Core keeps _balances in slot 0: halve the victim's balance behind its back.
    const slot = keccak256(
      AbiCoder.defaultAbiCoder().encode(['address', 'uint256'], [victim.holder, 0]),
    );
    await rpc('anvil_setStorageAt', [address, slot, toBeHex(parseEther('500'), 32)]);
    await rpc('evm_mine');
    const head = Number(await rpc<string>('eth_blockNumber'));
    await eventually(
      async () => ((await holders.track(CHAIN, 'live'))?.blockNumber ?? 0) >= head || undefined,
      60_000,
      'holders caught up',
    );
    await service.resimulate(CHAIN, address, 'liquidity');
    const sells = await eventually(
      async () => {
        const r = await row(address);
        const s = (
          r?.tradingSimulation as { holder_sells?: { siphoned: unknown[]; block: number } }
        )?.holder_sells;
        return s && s.block >= head && s.siphoned.length > 0 ? s : undefined;
      },
      60_000,
      'the siphon found',
    );
    expect(sells.siphoned).toEqual([
      {
        address: victim.holder,
        tracked_balance: parseEther('1001').toString(),
        balance: parseEther('500').toString(),
      },
    ]);
    await eventually(
      async () => {
        const [latest] = await handle.db
          .select()
          .from(analyses)
          .where(and(eq(analyses.chainId, CHAIN), eq(analyses.address, address)))
          .orderBy(desc(analyses.createdAt))
          .limit(1);
        const codes = (latest?.riskFactors as { code: string }[] | undefined)?.map((f) => f.code);
        return codes?.includes('holders:siphon') ? codes : undefined;
      },
      30_000,
      'the siphon scored',
    );
  }, 120_000);

  it('flags the look-alike and shows every holder part in the complete token object', async () => {
    const address = lookalike.address.toLowerCase();
    const [record] = await eventually(
      async () => {
        const found = await assembleComplete(createTokenRepository(handle.db), [
          { chainId: CHAIN, address },
        ]);
        const holdersAt = found[0]?.token.holders?.block ?? -1;
        return found[0]?.token.impersonates && holdersAt >= caughtUp ? found : undefined;
      },
      60_000,
      'look-alike scored',
    );
    const token = record!.token;
    expect(token.impersonates).toEqual({
      symbol: 'USDT',
      canonical_address: tether,
      matched: 'symbol',
    });
    const factors = token.analyses[0]!.risk_factor_details.map((f) => f.code);
    expect(factors).toContain('impersonation');
    expect(token.holders?.top_holders.map((h) => h.tag)).toEqual(
      expect.arrayContaining(['pair', 'creator']),
    );
    expect(token.lp_holders[0]?.creator_percent).toBeGreaterThan(99);
    expect(completeToken.safeParse(token).success).toBe(true);
    // The canonical USDT itself is no look-alike.
    const trapFactors = (
      await assembleComplete(createTokenRepository(handle.db), [
        { chainId: CHAIN, address: trap.address.toLowerCase() },
      ])
    )[0]!.token;
    expect(trapFactors.impersonates).toBeNull();
  }, 120_000);
});
