ALTER TABLE "tokens" ADD COLUMN "is_proxy" boolean;--> statement-breakpoint
ALTER TABLE "tokens" ADD COLUMN "implementation_address" text;--> statement-breakpoint
ALTER TABLE "tokens" ADD COLUMN "skeleton_hash" text;--> statement-breakpoint
ALTER TABLE "tokens" ADD COLUMN "template" text;--> statement-breakpoint
ALTER TABLE "tokens" ADD COLUMN "is_honeypot" boolean;--> statement-breakpoint
ALTER TABLE "tokens" ADD COLUMN "owner_address" text;--> statement-breakpoint
ALTER TABLE "tokens" ADD COLUMN "trading_simulation" jsonb;--> statement-breakpoint
ALTER TABLE "tokens" ADD COLUMN "security_hints" jsonb;--> statement-breakpoint
ALTER TABLE "tokens" ADD COLUMN "risk_updated_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "tokens" ADD COLUMN "liquidity_pulled_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "tokens_honeypot_skeleton_idx" ON "tokens" USING btree ("skeleton_hash") WHERE is_honeypot;