ALTER TABLE "api_keys" ADD COLUMN "scope" text DEFAULT 'purchase' NOT NULL;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "daily_points_cap" integer;--> statement-breakpoint
ALTER TABLE "top_ups" ADD COLUMN "api_key_id" text;--> statement-breakpoint
ALTER TABLE "top_ups" ADD CONSTRAINT "top_ups_api_key_id_api_keys_id_fk" FOREIGN KEY ("api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "top_ups_api_key_created_idx" ON "top_ups" USING btree ("api_key_id","created_at");--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_scope_check" CHECK ("api_keys"."scope" in ('purchase','read'));--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_daily_points_cap_check" CHECK ("api_keys"."daily_points_cap" > 0);