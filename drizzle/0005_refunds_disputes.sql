CREATE TABLE "refunds" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"top_up_id" text NOT NULL,
	"source" text NOT NULL,
	"request_key" text,
	"provider_idempotency_key" text,
	"provider_refund_id" text,
	"points" integer NOT NULL,
	"amount" bigint NOT NULL,
	"currency" text NOT NULL,
	"status" text NOT NULL,
	"reason" text,
	"failure_message" text,
	"applied_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "refunds_source_check" CHECK ("refunds"."source" in ('operator','provider')),
	CONSTRAINT "refunds_status_check" CHECK ("refunds"."status" in ('requested','pending','succeeded','failed','canceled')),
	CONSTRAINT "refunds_amounts_check" CHECK ("refunds"."points" >= 0 and "refunds"."amount" > 0)
);
--> statement-breakpoint
CREATE TABLE "sim_disputes" (
	"id" text PRIMARY KEY NOT NULL,
	"payment_id" text NOT NULL,
	"amount" bigint NOT NULL,
	"currency" text NOT NULL,
	"status" text NOT NULL,
	"funds_withdrawn" boolean DEFAULT false NOT NULL,
	"funds_reinstated" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sim_events" (
	"id" text PRIMARY KEY NOT NULL,
	"type" text NOT NULL,
	"event" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"delivered_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "sim_refunds" (
	"id" text PRIMARY KEY NOT NULL,
	"idempotency_key" text,
	"payment_id" text NOT NULL,
	"amount" bigint NOT NULL,
	"currency" text NOT NULL,
	"status" text NOT NULL,
	"request_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "points_ledger" DROP CONSTRAINT "points_ledger_delta_check";--> statement-breakpoint
DROP INDEX "points_ledger_top_up_idx";--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "held_points" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "points_ledger" ADD COLUMN "kind" text DEFAULT 'purchase' NOT NULL;--> statement-breakpoint
ALTER TABLE "points_ledger" ADD COLUMN "held_delta" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "points_ledger" ADD COLUMN "shortfall" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "points_ledger" ADD COLUMN "cause_id" text;--> statement-breakpoint
ALTER TABLE "points_ledger" ADD COLUMN "event_id" text;--> statement-breakpoint
ALTER TABLE "stripe_events" ADD COLUMN "detail" text;--> statement-breakpoint
ALTER TABLE "top_ups" ADD COLUMN "refunded_points" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "top_ups" ADD COLUMN "refunded_amount" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "top_ups" ADD COLUMN "dispute_id" text;--> statement-breakpoint
ALTER TABLE "top_ups" ADD COLUMN "dispute_status" text;--> statement-breakpoint
ALTER TABLE "top_ups" ADD COLUMN "dispute_funds_withdrawn" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "top_ups" ADD COLUMN "dispute_funds_reinstated" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "top_ups" ADD COLUMN "dispute_points" integer;--> statement-breakpoint
ALTER TABLE "top_ups" ADD COLUMN "dispute_points_state" text;--> statement-breakpoint
ALTER TABLE "top_ups" ADD COLUMN "dispute_opened_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "top_ups" ADD COLUMN "dispute_closed_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "refunds" ADD CONSTRAINT "refunds_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "refunds" ADD CONSTRAINT "refunds_top_up_id_top_ups_id_fk" FOREIGN KEY ("top_up_id") REFERENCES "public"."top_ups"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "refunds_request_idx" ON "refunds" USING btree ("top_up_id","request_key");--> statement-breakpoint
CREATE UNIQUE INDEX "refunds_provider_refund_idx" ON "refunds" USING btree ("provider_refund_id");--> statement-breakpoint
CREATE UNIQUE INDEX "refunds_idempotency_key_idx" ON "refunds" USING btree ("provider_idempotency_key");--> statement-breakpoint
CREATE INDEX "refunds_top_up_idx" ON "refunds" USING btree ("top_up_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "sim_disputes_payment_idx" ON "sim_disputes" USING btree ("payment_id");--> statement-breakpoint
CREATE INDEX "sim_events_pending_idx" ON "sim_events" USING btree ("created_at") WHERE "sim_events"."delivered_at" is null;--> statement-breakpoint
CREATE UNIQUE INDEX "sim_refunds_idempotency_key_idx" ON "sim_refunds" USING btree ("idempotency_key");--> statement-breakpoint
CREATE INDEX "sim_refunds_payment_idx" ON "sim_refunds" USING btree ("payment_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "points_ledger_cause_idx" ON "points_ledger" USING btree ("kind","cause_id");--> statement-breakpoint
CREATE INDEX "points_ledger_top_up_movements_idx" ON "points_ledger" USING btree ("top_up_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "top_ups_dispute_idx" ON "top_ups" USING btree ("dispute_id");--> statement-breakpoint
CREATE UNIQUE INDEX "points_ledger_top_up_idx" ON "points_ledger" USING btree ("top_up_id") WHERE "points_ledger"."kind" = 'purchase';--> statement-breakpoint
ALTER TABLE "organizations" ADD CONSTRAINT "organizations_held_points_check" CHECK ("organizations"."held_points" >= 0);--> statement-breakpoint
ALTER TABLE "points_ledger" ADD CONSTRAINT "points_ledger_kind_check" CHECK ("points_ledger"."kind" in ('purchase','refund','dispute_hold','dispute_release','dispute_loss','usage'));--> statement-breakpoint
ALTER TABLE "points_ledger" ADD CONSTRAINT "points_ledger_shortfall_check" CHECK ("points_ledger"."shortfall" >= 0);--> statement-breakpoint
ALTER TABLE "points_ledger" ADD CONSTRAINT "points_ledger_cause_check" CHECK ("points_ledger"."kind" in ('purchase','usage') or "points_ledger"."cause_id" is not null);--> statement-breakpoint
ALTER TABLE "points_ledger" ADD CONSTRAINT "points_ledger_delta_check" CHECK ("points_ledger"."kind" <> 'purchase' or "points_ledger"."delta" > 0);--> statement-breakpoint
ALTER TABLE "top_ups" ADD CONSTRAINT "top_ups_dispute_status_check" CHECK ("top_ups"."dispute_status" in ('open','won','lost'));--> statement-breakpoint
ALTER TABLE "top_ups" ADD CONSTRAINT "top_ups_dispute_points_state_check" CHECK ("top_ups"."dispute_points_state" in ('held','removed','released'));--> statement-breakpoint
ALTER TABLE "top_ups" ADD CONSTRAINT "top_ups_taken_back_check" CHECK ("top_ups"."refunded_points" >= 0 and "top_ups"."refunded_amount" >= 0 and "top_ups"."refunded_amount" <= "top_ups"."amount" and "top_ups"."points" - "top_ups"."refunded_points" - (case when "top_ups"."dispute_points_state" = 'removed' then coalesce("top_ups"."dispute_points", 0) else 0 end) >= 0);