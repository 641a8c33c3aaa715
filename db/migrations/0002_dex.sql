ALTER TABLE "pairs" ADD COLUMN "kind" text;--> statement-breakpoint
ALTER TABLE "pairs" ADD COLUMN "fee" integer;--> statement-breakpoint
ALTER TABLE "pairs" ADD COLUMN "quote_token" text;--> statement-breakpoint
ALTER TABLE "pairs" ADD COLUMN "reserve0" numeric(78, 0);--> statement-breakpoint
ALTER TABLE "pairs" ADD COLUMN "reserve1" numeric(78, 0);--> statement-breakpoint
ALTER TABLE "pairs" ADD COLUMN "sqrt_price_x96" numeric(78, 0);--> statement-breakpoint
ALTER TABLE "pairs" ADD COLUMN "liquidity" numeric(78, 0);--> statement-breakpoint
ALTER TABLE "pairs" ADD COLUMN "liquidity_usd" numeric(30, 2);--> statement-breakpoint
ALTER TABLE "pairs" ADD COLUMN "price_usd" numeric(40, 18);--> statement-breakpoint
ALTER TABLE "pairs" ADD COLUMN "volume_cursor_block" bigint;--> statement-breakpoint
ALTER TABLE "pairs" ADD COLUMN "volume_buckets" jsonb;--> statement-breakpoint
ALTER TABLE "pairs" ADD COLUMN "volume_from_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "pairs" ADD COLUMN "volume_24h_usd" numeric(30, 2);--> statement-breakpoint
ALTER TABLE "pairs" ADD COLUMN "last_swap_block" bigint;--> statement-breakpoint
ALTER TABLE "pairs" ADD COLUMN "last_swap_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "pairs" ADD COLUMN "state_block" bigint;--> statement-breakpoint
ALTER TABLE "pairs" ADD COLUMN "updated_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "tokens" ADD COLUMN "price_usd" numeric(40, 18);--> statement-breakpoint
ALTER TABLE "tokens" ADD COLUMN "market_cap_usd" numeric(30, 2);--> statement-breakpoint
ALTER TABLE "tokens" ADD COLUMN "initial_liquidity_usd" numeric(30, 2);--> statement-breakpoint
ALTER TABLE "tokens" ADD COLUMN "initial_liquidity_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "tokens" ADD COLUMN "volume_24h_usd" numeric(30, 2);--> statement-breakpoint
ALTER TABLE "tokens" ADD COLUMN "last_trade_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "tokens" ADD COLUMN "dex_hints" jsonb;--> statement-breakpoint
ALTER TABLE "tokens" ADD COLUMN "liquidity_lock" jsonb;--> statement-breakpoint
ALTER TABLE "tokens" ADD COLUMN "refresh_tier" text;--> statement-breakpoint
ALTER TABLE "tokens" ADD COLUMN "next_refresh_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "tokens" ADD COLUMN "dex_updated_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "tokens_next_refresh_idx" ON "tokens" USING btree ("next_refresh_at") WHERE next_refresh_at is not null;