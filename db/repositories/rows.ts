import type { analyses, apiKeys, creators, tokenHistory, tokens, users } from '../schema.ts';

/**
 * The row types the repositories share, in a leaf file: the repositories split by concern
 * (token-list, token-details, account-plans) import their words from here, never from each other.
 */

export type TokenRow = typeof tokens.$inferSelect;
export type AnalysisRow = typeof analyses.$inferSelect;
export type HistoryRow = typeof tokenHistory.$inferSelect;
export type CreatorRow = typeof creators.$inferSelect;
export type UserRow = typeof users.$inferSelect;
export type ApiKeyRow = typeof apiKeys.$inferSelect;

export interface TokenKey {
  chainId: number;
  address: string;
}
