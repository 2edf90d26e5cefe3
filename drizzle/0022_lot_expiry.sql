ALTER TABLE "point_lots" ADD COLUMN "notified_30_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "point_lots" ADD COLUMN "notified_7_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "point_lots_due_idx" ON "point_lots" USING btree ("expires_at") WHERE "point_lots"."remaining" > 0 and "point_lots"."expires_at" is not null;