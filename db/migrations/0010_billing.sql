CREATE TABLE "account_notices" (
	"id" serial PRIMARY KEY NOT NULL,
	"user_id" integer NOT NULL,
	"notice_key" text NOT NULL,
	"kind" text NOT NULL,
	"details" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"claimed_at" timestamp with time zone,
	"sent_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "billing_customers" (
	"user_id" integer PRIMARY KEY NOT NULL,
	"customer_id" text NOT NULL,
	"subscription_id" text,
	"subscription_status" text,
	"price_id" text,
	"plan" text,
	"period" text,
	"current_period_end" timestamp with time zone,
	"cancel_at" timestamp with time zone,
	"trial_used_at" timestamp with time zone,
	"subscription_event_at" timestamp with time zone,
	"subscription_event_rank" integer DEFAULT 0 NOT NULL,
	"payment_event_at" timestamp with time zone,
	"payment_event_paid" boolean,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "billing_events" (
	"event_id" text PRIMARY KEY NOT NULL,
	"type" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	"user_id" integer,
	"outcome" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "trial_converts" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "plan_ends_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "account_notices" ADD CONSTRAINT "account_notices_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "billing_customers" ADD CONSTRAINT "billing_customers_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "billing_events" ADD CONSTRAINT "billing_events_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "account_notices_key_idx" ON "account_notices" USING btree ("notice_key");--> statement-breakpoint
CREATE INDEX "account_notices_pending_idx" ON "account_notices" USING btree ("id") WHERE sent_at is null;--> statement-breakpoint
CREATE UNIQUE INDEX "billing_customers_customer_idx" ON "billing_customers" USING btree ("customer_id");--> statement-breakpoint
CREATE INDEX "billing_customers_subscription_idx" ON "billing_customers" USING btree ("subscription_id");--> statement-breakpoint
CREATE INDEX "billing_events_received_idx" ON "billing_events" USING btree ("received_at");--> statement-breakpoint
CREATE INDEX "users_plan_ends_idx" ON "users" USING btree ("plan_ends_at") WHERE plan_ends_at is not null;