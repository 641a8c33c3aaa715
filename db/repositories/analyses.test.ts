import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../test/support/services.ts';
import { createDb, type DbHandle } from '../client.ts';
import { tokens } from '../schema.ts';
import { createAnalysisRepository } from './analyses.ts';

/** The pass writes' shaped statements, on real Postgres (db/pipelined.ts shapedStatements). */

const CHAIN = 31337;
const addressOf = (i: number) => `0x${(i + 0xa0).toString(16).padStart(40, '0')}`;

let database: TestDatabase;
let handle: DbHandle;

beforeAll(async () => {
  database = await createTestDatabase();
  handle = createDb(database.url, { max: 2 });
  await handle.db.insert(tokens).values(
    [0, 1].map((i) => ({
      chainId: CHAIN,
      address: addressOf(i),
      name: `T${i}`,
      detectionSource: 'submitted' as const,
    })),
  );
}, 60_000);

afterAll(async () => {
  await handle?.close();
  await database?.drop();
});

describe('pass writes', () => {
  it('answer the merged details after a details-only merge ran first in the same repository', async () => {
    const analyses = createAnalysisRepository(handle.db);
    // A 'no code' pass merges details without asking for them back; a selectors write after it
    // must still get its own row's details (the simulate stage of its job starts from them).
    await analyses.mergeDetails(
      { chainId: CHAIN, address: addressOf(0), run: 'initial' },
      { error: 'no code' },
    );
    const start = await analyses.recordPass(
      { chainId: CHAIN, address: addressOf(1), run: 'initial' },
      {
        details: { static: { marker: 1 } },
        token: {
          isProxy: false,
          implementationAddress: null,
          skeletonHash: '0x1',
          template: null,
          ownerAddress: null,
        },
        stage: 'selectors',
      },
    );
    expect(start.own).toEqual({ run: 'initial', static: { marker: 1 } });
    expect(start.token?.stage).toBe('selectors');
    expect(start.token?.skeletonHash).toBe('0x1');
    // A later write of the same pass merges into the row and answers both parts.
    const again = await analyses.recordPass(
      { chainId: CHAIN, address: addressOf(1), run: 'initial' },
      { details: { security_hints: { ok: true } }, token: {}, stage: 'risk' },
    );
    expect(again.own).toEqual({
      run: 'initial',
      static: { marker: 1 },
      security_hints: { ok: true },
    });
    expect(again.token?.stage).toBe('risk');
  });
});
