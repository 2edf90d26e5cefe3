CREATE INDEX "top_ups_organization_status_created_idx" ON "top_ups" USING btree ("organization_id","status","created_at","id");--> statement-breakpoint
CREATE INDEX "top_ups_organization_source_created_idx" ON "top_ups" USING btree ("organization_id","source","created_at","id");--> statement-breakpoint
CREATE INDEX "top_ups_organization_refunded_idx" ON "top_ups" USING btree ("organization_id","created_at","id") WHERE "top_ups"."refunded_amount" > 0;--> statement-breakpoint
CREATE INDEX "top_ups_organization_disputed_idx" ON "top_ups" USING btree ("organization_id","created_at","id") WHERE "top_ups"."dispute_id" is not null;--> statement-breakpoint
CREATE INDEX "top_ups_organization_held_idx" ON "top_ups" USING btree ("organization_id") WHERE "top_ups"."dispute_points_state" = 'held';