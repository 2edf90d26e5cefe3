ALTER TABLE "top_ups" DROP CONSTRAINT "top_ups_source_check";--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "low_balance_threshold" integer;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "auto_recharge_enabled" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "auto_recharge_below" integer;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "auto_recharge_points" integer;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "auto_recharge_monthly_max" integer;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "auto_recharge_paused_reason" text;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "auto_recharge_crossings" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "auto_recharge_handled" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "organizations" ADD CONSTRAINT "organizations_low_balance_threshold_check" CHECK ("organizations"."low_balance_threshold" > 0);--> statement-breakpoint
ALTER TABLE "organizations" ADD CONSTRAINT "organizations_auto_recharge_check" CHECK (not "organizations"."auto_recharge_enabled" or ("organizations"."auto_recharge_below" > 0 and "organizations"."auto_recharge_points" in (100, 250, 500, 1000, 2500, 5000, 7500)));--> statement-breakpoint
ALTER TABLE "organizations" ADD CONSTRAINT "organizations_auto_recharge_monthly_max_check" CHECK ("organizations"."auto_recharge_monthly_max" > 0);--> statement-breakpoint
ALTER TABLE "top_ups" ADD CONSTRAINT "top_ups_source_check" CHECK ("top_ups"."source" in ('api','dashboard','auto_recharge'));