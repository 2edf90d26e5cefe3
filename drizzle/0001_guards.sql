CREATE TABLE "sign_in_failures" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "sign_in_failures_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"key" text NOT NULL,
	"failed_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "top_ups" DROP CONSTRAINT "top_ups_points_check";--> statement-breakpoint
DROP INDEX "top_ups_unresolved_idx";--> statement-breakpoint
ALTER TABLE "organizations" ALTER COLUMN "points_balance" SET DATA TYPE bigint;--> statement-breakpoint
ALTER TABLE "points_ledger" ALTER COLUMN "delta" SET DATA TYPE bigint;--> statement-breakpoint
ALTER TABLE "points_ledger" ALTER COLUMN "balance_after" SET DATA TYPE bigint;--> statement-breakpoint
ALTER TABLE "sim_payments" ALTER COLUMN "amount" SET DATA TYPE bigint;--> statement-breakpoint
ALTER TABLE "top_ups" ALTER COLUMN "amount" SET DATA TYPE bigint;--> statement-breakpoint
ALTER TABLE "sim_payments" ADD COLUMN "top_up_id" text;--> statement-breakpoint
ALTER TABLE "top_ups" ADD COLUMN "next_attempt_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "sign_in_failures_key_idx" ON "sign_in_failures" USING btree ("key","failed_at");--> statement-breakpoint
CREATE INDEX "sim_payments_top_up_idx" ON "sim_payments" USING btree ("top_up_id");--> statement-breakpoint
CREATE UNIQUE INDEX "top_ups_provider_idempotency_key_idx" ON "top_ups" USING btree ("provider_idempotency_key");--> statement-breakpoint
CREATE INDEX "top_ups_unresolved_idx" ON "top_ups" USING btree ("status","next_attempt_at","created_at") WHERE "top_ups"."status" in ('pending','processing','awaiting_payment');--> statement-breakpoint
ALTER TABLE "organizations" ADD CONSTRAINT "organizations_points_balance_check" CHECK ("organizations"."points_balance" >= 0);--> statement-breakpoint
ALTER TABLE "points_ledger" ADD CONSTRAINT "points_ledger_delta_check" CHECK ("points_ledger"."delta" <> 0);--> statement-breakpoint
ALTER TABLE "points_ledger" ADD CONSTRAINT "points_ledger_balance_after_check" CHECK ("points_ledger"."balance_after" >= 0);--> statement-breakpoint
ALTER TABLE "top_ups" ADD CONSTRAINT "top_ups_amount_check" CHECK ("top_ups"."amount" > 0);--> statement-breakpoint
ALTER TABLE "top_ups" ADD CONSTRAINT "top_ups_paid_at_check" CHECK (("top_ups"."status" = 'paid') = ("top_ups"."paid_at" is not null));--> statement-breakpoint
ALTER TABLE "top_ups" ADD CONSTRAINT "top_ups_points_check" CHECK ("top_ups"."points" in (100, 250, 500, 1000, 2500, 5000, 7500));--> statement-breakpoint
-- The ledger is append-only in the database itself: no code path, console session or bug may
-- rewrite or remove a credit once it is committed.
CREATE FUNCTION points_ledger_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'points_ledger is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
END;
$$;--> statement-breakpoint
CREATE TRIGGER points_ledger_append_only BEFORE UPDATE OR DELETE ON "points_ledger"
  FOR EACH ROW EXECUTE FUNCTION points_ledger_append_only();
