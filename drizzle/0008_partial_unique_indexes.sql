DROP INDEX "points_ledger_cause_idx";--> statement-breakpoint
DROP INDEX "top_ups_provider_payment_idx";--> statement-breakpoint
DROP INDEX "top_ups_dispute_idx";--> statement-breakpoint
CREATE UNIQUE INDEX "points_ledger_cause_idx" ON "points_ledger" USING btree ("kind","cause_id") WHERE "points_ledger"."cause_id" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "top_ups_provider_payment_idx" ON "top_ups" USING btree ("provider_payment_id") WHERE "top_ups"."provider_payment_id" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "top_ups_dispute_idx" ON "top_ups" USING btree ("dispute_id") WHERE "top_ups"."dispute_id" is not null;