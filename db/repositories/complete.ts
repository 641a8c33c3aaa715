import {
  ANALYSES_LIMIT,
  type CompleteRecord,
  DETAIL_HISTORY_LIMIT,
  toComplete,
} from '../../src/tokens/complete.ts';
import { qualityInputOf } from '../../src/tokens/view.ts';
import type { TokenKey } from './rows.ts';
import { tokenKey } from './token-details.ts';
import type { TokenRepository } from './tokens.ts';

/** Complete records (history up to DETAIL_HISTORY_LIMIT) of the tokens that exist, straight from Postgres. */
export async function assembleComplete(
  tokens: TokenRepository,
  keys: readonly TokenKey[],
  nowMs = Date.now(),
): Promise<CompleteRecord[]> {
  // Three reads in one parallel step (an unknown key finds no analyses and no history): the rows
  // with their creators (joined), the analyses with the admin functions, the history.
  const [rows, { recent, admin }, histories] = await Promise.all([
    tokens.rowsWithCreators(keys),
    tokens.analysesOf(keys, ANALYSES_LIMIT),
    tokens.histories(keys, DETAIL_HISTORY_LIMIT),
  ]);
  return rows.map(({ row, creator }) => {
    const key = tokenKey({ chainId: row.chainId, address: row.address });
    const token = toComplete(
      {
        row,
        analyses: recent.get(key) ?? [],
        adminFunctions: admin.get(key),
        creator: creator ?? undefined,
        history: histories.get(key) ?? [],
      },
      nowMs,
    );
    return { token, quality: qualityInputOf(row) };
  });
}
