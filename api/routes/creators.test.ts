import { describe, expect, it } from 'vitest';
import {
  addr,
  bearer,
  CREATOR,
  expectError,
  expectShape,
  MSG,
  SQL_ATTACKS,
  useApiStack,
} from '../../test/support/api-stack.ts';
import * as S from '../schemas.ts';

/** Creators and their reputation against the real stack (docs/api.md, "Creators"). */

const stack = useApiStack();
const call: typeof stack.call = (...args) => stack.call(...args);

describe('creators', () => {
  it('GET /api/creators and /api/creators/{address}: reputation fields; the detail lists its tokens', async () => {
    const list = expectShape(
      S.creatorList,
      await call(stack.A, 'GET', '/api/creators', { headers: bearer(stack.proKey) }),
    );
    const eth = list.items.find((c) => c.chain_id === 1 && c.address === CREATOR)!;
    expect(eth).toMatchObject({
      total_tokens: 3,
      success_rate: 33.33,
      scam_rate: 33.33,
      reputation_score: 40,
    });
    const detail = expectShape(
      S.creatorDetail,
      await call(
        stack.A,
        'GET',
        `/api/creators/${CREATOR.toUpperCase().replace('0X', '0x')}?chain_id=1`,
        { headers: bearer(stack.proKey) },
      ),
    );
    expect(detail.tokens.map((t) => t.symbol)).toEqual(['PEPE', 'MEDI', 'SAFE']);
    expectError(
      await call(stack.A, 'GET', `/api/creators/${addr(0xdead)}`, {
        headers: bearer(stack.proKey),
      }),
      404,
      'Creator not found',
    );
    expect(
      expectError(
        await call(stack.A, 'GET', '/api/creators?sort=name', { headers: bearer(stack.proKey) }),
        400,
      ),
    ).toContain('sort');
  });
});

describe('creators: errors and security', () => {
  it('page and limit as the general list: default 1 and 20, limit at most 100', async () => {
    const list = expectShape(
      S.creatorList,
      await call(stack.A, 'GET', '/api/creators', { headers: bearer(stack.proKey) }),
    );
    expect(list).toMatchObject({ page: 1, limit: 20 });
    expect(Object.keys(list.items[0]!)).toEqual([
      'address',
      'chain_id',
      'total_tokens',
      'success_rate',
      'scam_rate',
      'reputation_score',
      'first_seen',
      'last_seen',
    ]);
    for (const q of ['limit=101', 'limit=0', 'page=0', 'chain_id=999']) {
      expect(
        expectError(
          await call(stack.A, 'GET', `/api/creators?${q}`, { headers: bearer(stack.proKey) }),
          400,
        ),
      ).toContain(q.split('=')[0]!);
    }
  });

  it('FREE → 403, no credential → 401, injection → 400', async () => {
    const free = await stack.makeUser('FREE');
    expectError(
      await call(stack.A, 'GET', '/api/creators', { headers: bearer(free.jwt) }),
      403,
      MSG.basic,
    );
    expectError(
      await call(stack.A, 'GET', `/api/creators/${CREATOR}`, { headers: bearer(free.jwt) }),
      403,
      MSG.basic,
    );
    expectError(await call(stack.A, 'GET', '/api/creators'), 401, MSG.unauthorized);
    for (const attack of SQL_ATTACKS) {
      expect(
        (
          await call(stack.A, 'GET', `/api/creators/${encodeURIComponent(attack)}`, {
            headers: bearer(stack.proKey),
          })
        ).status,
      ).toBe(400);
    }
  });
});
