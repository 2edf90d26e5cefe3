CREATE TABLE "spends" (
	"organization_id" text NOT NULL,
	"id" text NOT NULL,
	"reference" text NOT NULL,
	"points" integer NOT NULL,
	"description" text,
	"source" text NOT NULL,
	"api_key_id" text,
	"balance_after" bigint NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "spends_organization_id_id_pk" PRIMARY KEY("organization_id","id"),
	CONSTRAINT "spends_points_check" CHECK ("spends"."points" between 1 and 1000000),
	CONSTRAINT "spends_source_check" CHECK ("spends"."source" in ('api','operator')),
	CONSTRAINT "spends_description_check" CHECK ("spends"."description" is null or char_length("spends"."description") <= 200)
);
--> statement-breakpoint
ALTER TABLE "api_keys" DROP CONSTRAINT "api_keys_scope_check";--> statement-breakpoint
ALTER TABLE "api_keys" DROP CONSTRAINT "api_keys_read_no_cap_check";--> statement-breakpoint
ALTER TABLE "spends" ADD CONSTRAINT "spends_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "spends_reference_idx" ON "spends" USING btree ("organization_id","reference");--> statement-breakpoint
CREATE INDEX "spends_created_idx" ON "spends" USING btree ("organization_id","created_at","id");--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_scope_check" CHECK ("api_keys"."scope" in ('purchase','spend','read'));--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_read_no_cap_check" CHECK ("api_keys"."scope" = 'purchase' or "api_keys"."daily_points_cap" is null);