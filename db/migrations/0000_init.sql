CREATE TABLE "analyses" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"chain_id" integer NOT NULL,
	"address" text NOT NULL,
	"input_hash" text NOT NULL,
	"risk_score" integer,
	"risk_level" text,
	"risk_factors" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"actionable_insights" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"alerts" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"details" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "api_keys" (
	"id" serial PRIMARY KEY NOT NULL,
	"user_id" integer NOT NULL,
	"key_hash" text NOT NULL,
	"secret_hash" text NOT NULL,
	"masked_key" text NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"plan" text NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"requests_per_minute" integer DEFAULT 10 NOT NULL,
	"requests_per_hour" integer DEFAULT 100 NOT NULL,
	"requests_per_day" integer DEFAULT 1000 NOT NULL,
	"last_used" timestamp with time zone,
	"total_requests" bigint DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "block_hashes" (
	"chain_id" integer NOT NULL,
	"block_number" bigint NOT NULL,
	"block_hash" text NOT NULL,
	"parent_hash" text NOT NULL,
	"timestamp" timestamp with time zone NOT NULL,
	CONSTRAINT "block_hashes_chain_id_block_number_pk" PRIMARY KEY("chain_id","block_number")
);
--> statement-breakpoint
CREATE TABLE "creators" (
	"chain_id" integer NOT NULL,
	"address" text NOT NULL,
	"total_tokens" integer DEFAULT 0 NOT NULL,
	"success_count" integer DEFAULT 0 NOT NULL,
	"scam_count" integer DEFAULT 0 NOT NULL,
	"reputation_score" integer,
	"first_seen" timestamp with time zone DEFAULT now() NOT NULL,
	"last_seen" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "creators_chain_id_address_pk" PRIMARY KEY("chain_id","address")
);
--> statement-breakpoint
CREATE TABLE "pairs" (
	"chain_id" integer NOT NULL,
	"address" text NOT NULL,
	"dex" text NOT NULL,
	"factory" text,
	"token0" text NOT NULL,
	"token1" text NOT NULL,
	"creation_block_number" bigint,
	"creation_tx_hash" text,
	"detected_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "pairs_chain_id_address_pk" PRIMARY KEY("chain_id","address")
);
--> statement-breakpoint
CREATE TABLE "scan_cursors" (
	"chain_id" integer PRIMARY KEY NOT NULL,
	"next_block" bigint NOT NULL,
	"genesis_hash" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
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
);
--> statement-breakpoint
CREATE TABLE "tokens" (
	"chain_id" integer NOT NULL,
	"address" text NOT NULL,
	"name" text,
	"symbol" text,
	"decimals" integer,
	"total_supply" numeric(78, 0),
	"creation_tx_hash" text,
	"creator" text,
	"creator_is_contract" boolean,
	"tx_origin" text,
	"creation_block_number" bigint,
	"creation_block_hash" text,
	"creation_timestamp" timestamp with time zone,
	"creation_gas_used" bigint,
	"detection_source" text NOT NULL,
	"bytecode_hash" text,
	"code_length" integer,
	"proxy_like" boolean,
	"stage" text DEFAULT 'detected' NOT NULL,
	"current_risk_score" integer,
	"current_risk_level" text,
	"current_liquidity_usd" numeric(30, 2),
	"is_actively_traded" boolean DEFAULT false NOT NULL,
	"detected_at" timestamp with time zone DEFAULT now() NOT NULL,
	"announced_at" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "tokens_chain_id_address_pk" PRIMARY KEY("chain_id","address")
);
--> statement-breakpoint
CREATE TABLE "users" (
	"id" serial PRIMARY KEY NOT NULL,
	"email" text NOT NULL,
	"password_hash" text NOT NULL,
	"plan" text DEFAULT 'FREE' NOT NULL,
	"trial_ends_at" timestamp with time zone,
	"payment_failed_at" timestamp with time zone,
	"downgraded_at" timestamp with time zone,
	"email_alerts" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "watchlist" (
	"user_id" integer NOT NULL,
	"chain_id" integer NOT NULL,
	"address" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "watchlist_user_id_chain_id_address_pk" PRIMARY KEY("user_id","chain_id","address")
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "watchlist" ADD CONSTRAINT "watchlist_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "analyses_input_idx" ON "analyses" USING btree ("chain_id","address","input_hash");--> statement-breakpoint
CREATE INDEX "analyses_token_idx" ON "analyses" USING btree ("chain_id","address","created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_key_hash_idx" ON "api_keys" USING btree ("key_hash");--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_one_active_idx" ON "api_keys" USING btree ("user_id") WHERE status = 'active';--> statement-breakpoint
CREATE INDEX "pairs_token0_idx" ON "pairs" USING btree ("chain_id","token0");--> statement-breakpoint
CREATE INDEX "pairs_token1_idx" ON "pairs" USING btree ("chain_id","token1");--> statement-breakpoint
CREATE INDEX "tokens_detected_at_idx" ON "tokens" USING btree ("detected_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "tokens_chain_detected_idx" ON "tokens" USING btree ("chain_id","detected_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "tokens_creator_idx" ON "tokens" USING btree ("chain_id","creator");--> statement-breakpoint
CREATE INDEX "tokens_creation_block_idx" ON "tokens" USING btree ("chain_id","creation_block_number");--> statement-breakpoint
CREATE UNIQUE INDEX "users_email_idx" ON "users" USING btree ("email");