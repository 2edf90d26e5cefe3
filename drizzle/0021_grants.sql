CREATE TABLE "grants" (
	"organization_id" text NOT NULL,
	"id" text NOT NULL,
	"points" integer NOT NULL,
	"reason" text NOT NULL,
	"reference" text,
	"expires_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"voided_at" timestamp with time zone,
	"voided_points" integer,
	CONSTRAINT "grants_organization_id_id_pk" PRIMARY KEY("organization_id","id"),
	CONSTRAINT "grants_points_check" CHECK ("grants"."points" between 1 and 1000000),
	CONSTRAINT "grants_reason_check" CHECK (char_length("grants"."reason") between 1 and 200)
);
--> statement-breakpoint
ALTER TABLE "points_ledger" DROP CONSTRAINT "points_ledger_kind_check";--> statement-breakpoint
ALTER TABLE "grants" ADD CONSTRAINT "grants_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "grants_reference_idx" ON "grants" USING btree ("organization_id","reference") WHERE "grants"."reference" is not null;--> statement-breakpoint
CREATE INDEX "grants_id_idx" ON "grants" USING btree ("id");--> statement-breakpoint
ALTER TABLE "points_ledger" ADD CONSTRAINT "points_ledger_kind_check" CHECK ("points_ledger"."kind" in ('purchase','refund','dispute_hold','dispute_release','dispute_loss','usage','grant','grant_void','expiry'));