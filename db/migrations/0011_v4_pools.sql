ALTER TABLE "pairs" ADD COLUMN "tick_spacing" integer;--> statement-breakpoint
ALTER TABLE "pairs" ADD COLUMN "hooks" text;