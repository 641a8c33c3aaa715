-- Hand-edited after drizzle-kit generate: pg_trgm and the partitioning of the history tables
-- (drizzle cannot express either). Every history table is partitioned by range of bucket_at and
-- starts with a DEFAULT partition, so no write is ever refused; the maintenance job
-- (workers/history-maintenance.ts) creates the dated partitions, moving rows out of DEFAULT.
CREATE EXTENSION IF NOT EXISTS pg_trgm;--> statement-breakpoint
CREATE TABLE "history_maintenance" (
	"name" text PRIMARY KEY NOT NULL,
	"rolled_up_until" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "token_history_1h" (
	"chain_id" integer NOT NULL,
	"address" text NOT NULL,
	"bucket_at" timestamp with time zone NOT NULL,
	"risk_score" integer,
	"price_usd" numeric(40, 18),
	"liquidity_usd" numeric(30, 2),
	"volume_24h_usd" numeric(30, 2),
	"market_cap_usd" numeric(30, 2),
	CONSTRAINT "token_history_1h_chain_id_address_bucket_at_pk" PRIMARY KEY("chain_id","address","bucket_at")
) PARTITION BY RANGE ("bucket_at");
--> statement-breakpoint
CREATE TABLE "token_history_1h_default" PARTITION OF "token_history_1h" DEFAULT;
--> statement-breakpoint
CREATE TABLE "token_history_5m" (
	"chain_id" integer NOT NULL,
	"address" text NOT NULL,
	"bucket_at" timestamp with time zone NOT NULL,
	"risk_score" integer,
	"price_usd" numeric(40, 18),
	"liquidity_usd" numeric(30, 2),
	"volume_24h_usd" numeric(30, 2),
	"market_cap_usd" numeric(30, 2),
	CONSTRAINT "token_history_5m_chain_id_address_bucket_at_pk" PRIMARY KEY("chain_id","address","bucket_at")
) PARTITION BY RANGE ("bucket_at");
--> statement-breakpoint
CREATE TABLE "token_history_5m_default" PARTITION OF "token_history_5m" DEFAULT;
--> statement-breakpoint
DROP INDEX "tokens_detected_at_idx";--> statement-breakpoint
DROP INDEX "tokens_chain_detected_idx";--> statement-breakpoint
CREATE INDEX "tokens_list_idx" ON "tokens" USING btree ("detected_at" DESC NULLS LAST,"address" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "tokens_chain_list_idx" ON "tokens" USING btree ("chain_id","detected_at" DESC NULLS LAST,"address" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "tokens_risk_level_list_idx" ON "tokens" USING btree ("current_risk_level","detected_at" DESC NULLS LAST,"address" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "tokens_liquid_list_idx" ON "tokens" USING btree ("detected_at" DESC NULLS LAST,"address" DESC NULLS LAST) WHERE current_liquidity_usd > 0;--> statement-breakpoint
CREATE INDEX "tokens_traded_list_idx" ON "tokens" USING btree ("detected_at" DESC NULLS LAST,"address" DESC NULLS LAST) WHERE is_actively_traded;--> statement-breakpoint
CREATE INDEX "tokens_name_trgm_idx" ON "tokens" USING gin ("name" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "tokens_symbol_trgm_idx" ON "tokens" USING gin ("symbol" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "tokens_address_pattern_idx" ON "tokens" USING btree ("address" text_pattern_ops);--> statement-breakpoint
-- token_history becomes partitioned: the rows so far move to its DEFAULT partition.
ALTER TABLE "token_history" RENAME TO "token_history_unpartitioned";--> statement-breakpoint
ALTER TABLE "token_history_unpartitioned" RENAME CONSTRAINT "token_history_chain_id_address_bucket_at_pk" TO "token_history_unpartitioned_pk";--> statement-breakpoint
CREATE TABLE "token_history" (
	"chain_id" integer NOT NULL,
	"address" text NOT NULL,
	"bucket_at" timestamp with time zone NOT NULL,
	"risk_score" integer,
	"price_usd" numeric(40, 18),
	"liquidity_usd" numeric(30, 2),
	"volume_24h_usd" numeric(30, 2),
	"market_cap_usd" numeric(30, 2),
	CONSTRAINT "token_history_chain_id_address_bucket_at_pk" PRIMARY KEY("chain_id","address","bucket_at")
) PARTITION BY RANGE ("bucket_at");--> statement-breakpoint
CREATE TABLE "token_history_default" PARTITION OF "token_history" DEFAULT;--> statement-breakpoint
INSERT INTO "token_history" SELECT "chain_id", "address", "bucket_at", "risk_score", "price_usd", "liquidity_usd", "volume_24h_usd", "market_cap_usd" FROM "token_history_unpartitioned";--> statement-breakpoint
DROP TABLE "token_history_unpartitioned";
