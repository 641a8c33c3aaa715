CREATE TABLE "holder_balances" (
	"chain_id" integer NOT NULL,
	"token" text NOT NULL,
	"holder" text NOT NULL,
	"balance" numeric(78, 0) NOT NULL,
	"is_contract" boolean,
	CONSTRAINT "holder_balances_chain_id_token_holder_pk" PRIMARY KEY("chain_id","token","holder")
);
--> statement-breakpoint
CREATE TABLE "holder_changes" (
	"chain_id" integer NOT NULL,
	"block_number" bigint NOT NULL,
	"token" text NOT NULL,
	"holder" text NOT NULL,
	"delta" numeric(78, 0) NOT NULL,
	CONSTRAINT "holder_changes_chain_id_block_number_token_holder_pk" PRIMARY KEY("chain_id","block_number","token","holder")
);
--> statement-breakpoint
CREATE TABLE "holder_pending" (
	"chain_id" integer NOT NULL,
	"block_number" bigint NOT NULL,
	"block_hash" text NOT NULL,
	"parent_hash" text NOT NULL,
	"transfers" jsonb NOT NULL,
	CONSTRAINT "holder_pending_chain_id_block_number_block_hash_pk" PRIMARY KEY("chain_id","block_number","block_hash")
);
--> statement-breakpoint
CREATE TABLE "holder_tracks" (
	"chain_id" integer NOT NULL,
	"track" text NOT NULL,
	"start_block" bigint NOT NULL,
	"block_number" bigint NOT NULL,
	"block_hash" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "holder_tracks_chain_id_track_pk" PRIMARY KEY("chain_id","track")
);
--> statement-breakpoint
ALTER TABLE "tokens" ADD COLUMN "holders" jsonb;--> statement-breakpoint
CREATE INDEX "holder_balances_top_idx" ON "holder_balances" USING btree ("chain_id","token","balance" DESC NULLS LAST);