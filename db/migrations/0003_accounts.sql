ALTER TABLE "users" ADD COLUMN "downgraded_from" text;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "preferences" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "purged_at" timestamp with time zone;--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_secret_hash_idx" ON "api_keys" USING btree ("secret_hash");--> statement-breakpoint
CREATE INDEX "api_keys_user_idx" ON "api_keys" USING btree ("user_id","created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "creators_last_seen_idx" ON "creators" USING btree ("last_seen" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "tokens_risk_score_idx" ON "tokens" USING btree ("current_risk_score");--> statement-breakpoint
CREATE INDEX "tokens_liquidity_idx" ON "tokens" USING btree ("current_liquidity_usd");--> statement-breakpoint
CREATE INDEX "users_trial_idx" ON "users" USING btree ("trial_ends_at") WHERE trial_ends_at is not null;--> statement-breakpoint
CREATE INDEX "users_payment_failed_idx" ON "users" USING btree ("payment_failed_at") WHERE payment_failed_at is not null;--> statement-breakpoint
CREATE INDEX "users_downgraded_idx" ON "users" USING btree ("downgraded_at") WHERE downgraded_at is not null and purged_at is null;