import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { users, watchlist as watchlistTable } from '../../db/schema.ts';
import {
  addr,
  bearer,
  expectError,
  expectShape,
  MSG,
  SQL_ATTACKS,
  useApiStack,
} from '../../test/support/api-stack.ts';
import * as S from '../schemas.ts';

/** The watchlist against the real stack (docs/api.md, "Watchlist"): BASIC and PRO, per user. */

const stack = useApiStack();
const call: typeof stack.call = (...args) => stack.call(...args);

describe('watchlist', () => {
  it('add 201, duplicate 409, unknown token 404, list, remove, remove again 404', async () => {
    const user = await stack.makeUser('BASIC');
    const hh = bearer(user.jwt);
    const added = expectShape(
      S.watchlistItem,
      await call(stack.A, 'POST', '/api/watchlist', {
        headers: hh,
        body: { address: addr(0xa002).toUpperCase().replace('0X', '0x'), chain_id: 1 },
      }),
      201,
    );
    expect(added).toMatchObject({
      contract_address: addr(0xa002),
      chain_id: 1,
      token: { symbol: 'MEDI' },
    });
    expectError(
      await call(stack.B, 'POST', '/api/watchlist', {
        headers: hh,
        body: { address: addr(0xa002), chain_id: 1 },
      }),
      409,
      MSG.inWatchlist,
    );
    expectError(
      await call(stack.A, 'POST', '/api/watchlist', {
        headers: hh,
        body: { address: addr(0xa002), chain_id: 56 },
      }),
      404,
      MSG.tokenNotFound,
    );
    const list = expectShape(
      S.watchlistResponse,
      await call(stack.A, 'GET', '/api/watchlist', { headers: hh }),
    );
    expect(list.total).toBe(1);
    expect(list.items[0]!.token!.current_risk_score).toBe(45);
    expectShape(
      S.watchlistRemoved,
      await call(stack.A, 'DELETE', `/api/watchlist/${addr(0xa002)}?chain_id=1`, { headers: hh }),
    );
    expectError(
      await call(stack.A, 'DELETE', `/api/watchlist/${addr(0xa002)}?chain_id=1`, { headers: hh }),
      404,
      'Token not in watchlist',
    );
    expect(
      expectError(
        await call(stack.A, 'POST', '/api/watchlist', { headers: hh, body: { address: addr(1) } }),
        400,
      ),
    ).toContain('chain_id');
  });
});

describe('watchlist: plans and security', () => {
  it("FREE → 403 on every operation; no credential → 401; one user never sees another's", async () => {
    const free = await stack.makeUser('FREE');
    expectError(
      await call(stack.A, 'GET', '/api/watchlist', { headers: bearer(free.jwt) }),
      403,
      MSG.basic,
    );
    expectError(
      await call(stack.A, 'POST', '/api/watchlist', {
        headers: bearer(free.jwt),
        body: { address: addr(0xa001), chain_id: 1 },
      }),
      403,
      MSG.basic,
    );
    expectError(
      await call(stack.A, 'DELETE', `/api/watchlist/${addr(0xa001)}?chain_id=1`, {
        headers: bearer(free.jwt),
      }),
      403,
      MSG.basic,
    );
    expectError(await call(stack.A, 'GET', '/api/watchlist'), 401, MSG.unauthorized);
    const one = await stack.makeUser('PRO');
    const other = await stack.makeUser('BASIC');
    expectShape(
      S.watchlistItem,
      await call(stack.A, 'POST', '/api/watchlist', {
        headers: bearer(one.jwt),
        body: { address: addr(0xa001), chain_id: 1 },
      }),
      201,
    );
    expect(
      expectShape(
        S.watchlistResponse,
        await call(stack.B, 'GET', '/api/watchlist', { headers: bearer(other.jwt) }),
      ),
    ).toEqual({ items: [], total: 0 });
    expectError(
      await call(stack.A, 'DELETE', `/api/watchlist/${addr(0xa001)}?chain_id=1`, {
        headers: bearer(other.jwt),
      }),
      404,
      'Token not in watchlist',
    );
    // A PRO key works as a Bearer credential on the general API.
    expect(
      expectShape(
        S.watchlistResponse,
        await call(stack.A, 'GET', '/api/watchlist', { headers: bearer(stack.proKey) }),
      ).total,
    ).toBe(0);
  });

  it('injection in the body, path and query is a 400; rows go with their user', async () => {
    const user = await stack.makeUser('BASIC');
    for (const attack of SQL_ATTACKS) {
      expect(
        expectError(
          await call(stack.A, 'POST', '/api/watchlist', {
            headers: bearer(user.jwt),
            body: { address: attack, chain_id: 1 },
          }),
          400,
        ),
      ).toContain('address');
      expect(
        expectError(
          await call(stack.A, 'POST', '/api/watchlist', {
            headers: bearer(user.jwt),
            body: { address: addr(0xa001), chain_id: attack },
          }),
          400,
        ),
      ).toContain('chain_id');
      expect(
        (
          await call(stack.A, 'DELETE', `/api/watchlist/${encodeURIComponent(attack)}`, {
            headers: bearer(user.jwt),
          })
        ).status,
      ).toBe(400);
    }
    await stack.accounts.addToWatchlist(user.user.id, 1, addr(0xa001));
    await stack.handle.db.delete(users).where(eq(users.id, user.user.id));
    expect(
      await stack.handle.db
        .select()
        .from(watchlistTable)
        .where(eq(watchlistTable.userId, user.user.id)),
    ).toEqual([]);
  });
});
