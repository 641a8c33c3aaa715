CREATE TABLE "alert_deliveries" (
	"user_id" integer NOT NULL,
	"alert_key" text NOT NULL,
	"kind" text NOT NULL,
	"chain_id" integer NOT NULL,
	"address" text NOT NULL,
	"stream_id" text NOT NULL,
	"message" text NOT NULL,
	"email_wanted" boolean DEFAULT false NOT NULL,
	"email_claimed_at" timestamp with time zone,
	"emailed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "alert_deliveries" ADD CONSTRAINT "alert_deliveries_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "alert_deliveries_user_key_idx" ON "alert_deliveries" USING btree ("user_id","alert_key");--> statement-breakpoint
CREATE INDEX "alert_deliveries_pending_email_idx" ON "alert_deliveries" USING btree ("alert_key") WHERE email_wanted and emailed_at is null;