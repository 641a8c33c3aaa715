import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../test/support/services.ts';
import { createDb, type DbHandle } from '../client.ts';
import { analyses, creators, tokens } from '../schema.ts';
import { type AnalysisRow, createTokenRepository, tokenKey } from './tokens.ts';

/**
 * The PRO detail's combined reads (db/repositories/token-details.ts) against what each part means,
 * computed here from every row: the newest `limit` scored analyses, the admin functions of the
 * newest static analysis, and each token's creator row.
 */

const CHAIN = 31337;
const CREATOR = '0x00000000000000000000000000000000000c0de1';
const UNKNOWN_CREATOR = '0x00000000000000000000000000000000000c0de2';
const LIMIT = 10;
const addressOf = (i: number) => `0x${(i + 1).toString(16).padStart(40, '0')}`;
const A = { chainId: CHAIN, address: addressOf(0) };
const B = { chainId: CHAIN, address: addressOf(1) };
const NONE = { chainId: CHAIN, address: addressOf(2) };
const ABSENT = { chainId: CHAIN, address: addressOf(3) };
const T0 = Date.UTC(2026, 0, 1);

let database: TestDatabase;
let handle: DbHandle;

const adminOf = (n: number) => [
  {
    name: `f${n}`,
    selector: '0x12345678',
    access_control: 'owner',
    risk_level: 'high',
    description: 'd',
  },
];

beforeAll(async () => {
  database = await createTestDatabase();
  handle = createDb(database.url, { max: 2 });
  const now = new Date(T0);
  await handle.db.insert(tokens).values(
    [A, B, NONE].map((k, i) => ({
      ...k,
      name: `T${i}`,
      creator: i === 0 ? CREATOR : i === 1 ? UNKNOWN_CREATOR : null,
      detectionSource: 'submitted',
      detectedAt: now,
    })),
  );
  await handle.db.insert(creators).values({
    chainId: CHAIN,
    address: CREATOR,
    totalTokens: 3,
    successCount: 1,
    scamCount: 2,
    reputationScore: 40,
    firstSeen: now,
    lastSeen: now,
  });
  // Token A: 16 analyses; scored and unscored interleaved, static ones among them, two sharing a
  // time (the id decides), the newest neither scored nor static (a re-run without its own).
  const rows: (typeof analyses.$inferInsert)[] = Array.from({ length: 16 }, (_, n) => ({
    ...A,
    inputHash: `a${n}`,
    riskScore: n % 4 === 3 ? null : n * 5,
    riskLevel: n % 4 === 3 ? null : 'low',
    details: n === 2 || n === 9 || n === 11 ? { static: { admin_functions: adminOf(n) } } : {},
    createdAt: new Date(T0 + (n === 8 ? 7 : n) * 60_000),
  }));
  rows.push({
    ...A,
    inputHash: 'a-newest',
    riskScore: null,
    riskLevel: null,
    details: {},
    createdAt: new Date(T0 + 100 * 60_000),
  });
  // Token B: an unscored static analysis without admin functions, then an older scored one.
  rows.push(
    {
      ...B,
      inputHash: 'b0',
      riskScore: 70,
      riskLevel: 'high',
      details: { static: { admin_functions: adminOf(0) } },
      createdAt: new Date(T0),
    },
    {
      ...B,
      inputHash: 'b1',
      riskScore: null,
      riskLevel: null,
      details: { static: {} },
      createdAt: new Date(T0 + 60_000),
    },
  );
  await handle.db.insert(analyses).values(rows);
});

afterAll(async () => {
  await handle?.close();
  await database?.drop();
});

/** The reference: every row of the token, ordered and filtered in JavaScript. */
async function expected(key: typeof A) {
  const all = (await handle.db.select().from(analyses)).filter(
    (r) => r.chainId === key.chainId && r.address === key.address,
  );
  const newestFirst = (a: AnalysisRow, b: AnalysisRow) =>
    b.createdAt.getTime() - a.createdAt.getTime() || b.id - a.id;
  const recent = all
    .filter((r) => r.riskScore !== null)
    .sort(newestFirst)
    .slice(0, LIMIT);
  const newestStatic = all.filter((r) => 'static' in (r.details as object)).sort(newestFirst)[0];
  const admin = newestStatic
    ? ((newestStatic.details as { static: { admin_functions?: unknown } }).static.admin_functions ??
      null)
    : undefined;
  return { recent, admin };
}

describe('PRO detail reads', () => {
  it('analysesOf: the newest scored analyses and the newest static analysis’s admin functions, in one read', async () => {
    const repo = createTokenRepository(handle.db);
    const { recent, admin } = await repo.analysesOf([A, B, NONE, ABSENT], LIMIT);
    for (const key of [A, B]) {
      const want = await expected(key);
      expect(recent.get(tokenKey(key))).toEqual(want.recent);
      expect(admin.get(tokenKey(key))).toEqual(want.admin);
    }
    expect(recent.get(tokenKey(A))).toHaveLength(LIMIT);
    // A's newest static analysis is n = 11 although two newer analyses exist.
    expect(admin.get(tokenKey(A))).toEqual(adminOf(11));
    // B's newest static analysis has no admin functions: null, not the older one's.
    expect(admin.get(tokenKey(B))).toBeNull();
    expect(recent.get(tokenKey(NONE))).toEqual([]);
    expect(admin.has(tokenKey(NONE))).toBe(false);
    expect(recent.get(tokenKey(ABSENT))).toEqual([]);
  });

  it('rowsWithCreators: each row with its creator’s row, null when the creator has none', async () => {
    const repo = createTokenRepository(handle.db);
    const found = await repo.rowsWithCreators([A, B, NONE, ABSENT]);
    const byAddress = new Map(found.map((f) => [f.row.address, f]));
    expect([...byAddress.keys()].sort()).toEqual([A.address, B.address, NONE.address]);
    expect(byAddress.get(A.address)!.row.creator).toBe(CREATOR);
    expect(byAddress.get(A.address)!.creator).toMatchObject({
      chainId: CHAIN,
      address: CREATOR,
      reputationScore: 40,
    });
    expect(byAddress.get(B.address)!.creator).toBeNull();
    expect(byAddress.get(NONE.address)!.creator).toBeNull();
  });
});
