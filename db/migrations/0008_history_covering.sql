-- Hand-written (drizzle cannot express INCLUDE): the primary key of each history tier carries the
-- snapshot's values, so the PRO detail's history read (newest `limit` snapshots of one token) is
-- an index-only scan: one or two index pages per token instead of one heap page per snapshot
-- wherever tokens' snapshots interleave (docs/scale.md). One index as before, not a second one.
-- Conflict inference (ON CONFLICT (chain_id, address, bucket_at)) is unchanged: INCLUDE columns
-- are not part of the key.
ALTER TABLE "token_history" DROP CONSTRAINT "token_history_chain_id_address_bucket_at_pk";--> statement-breakpoint
ALTER TABLE "token_history" ADD CONSTRAINT "token_history_chain_id_address_bucket_at_pk" PRIMARY KEY ("chain_id","address","bucket_at") INCLUDE ("risk_score","price_usd","liquidity_usd","volume_24h_usd","market_cap_usd");--> statement-breakpoint
ALTER TABLE "token_history_5m" DROP CONSTRAINT "token_history_5m_chain_id_address_bucket_at_pk";--> statement-breakpoint
ALTER TABLE "token_history_5m" ADD CONSTRAINT "token_history_5m_chain_id_address_bucket_at_pk" PRIMARY KEY ("chain_id","address","bucket_at") INCLUDE ("risk_score","price_usd","liquidity_usd","volume_24h_usd","market_cap_usd");--> statement-breakpoint
ALTER TABLE "token_history_1h" DROP CONSTRAINT "token_history_1h_chain_id_address_bucket_at_pk";--> statement-breakpoint
ALTER TABLE "token_history_1h" ADD CONSTRAINT "token_history_1h_chain_id_address_bucket_at_pk" PRIMARY KEY ("chain_id","address","bucket_at") INCLUDE ("risk_score","price_usd","liquidity_usd","volume_24h_usd","market_cap_usd");
