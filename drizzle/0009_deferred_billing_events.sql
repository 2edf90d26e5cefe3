CREATE TABLE "deferred_billing_events" (
	"id" text PRIMARY KEY NOT NULL,
	"type" text NOT NULL,
	"event" jsonb NOT NULL,
	"detail" text NOT NULL,
	"attempts" integer DEFAULT 1 NOT NULL,
	"first_deferred_at" timestamp with time zone NOT NULL,
	"last_deferred_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "deferred_billing_events_first_idx" ON "deferred_billing_events" USING btree ("first_deferred_at");