ALTER TABLE "top_ups" ADD COLUMN "provider" text;--> statement-breakpoint
UPDATE "top_ups" SET "provider" = CASE
  WHEN left("billing_customer_id", 8) = 'cus_sim_'
    OR left(coalesce("provider_payment_id", ''), 7) = 'pi_sim_'
    OR EXISTS (SELECT 1 FROM "sim_customers" WHERE "sim_customers"."id" = "top_ups"."billing_customer_id")
  THEN 'simulated'
  ELSE 'stripe'
END;--> statement-breakpoint
ALTER TABLE "top_ups" ADD CONSTRAINT "top_ups_provider_check" CHECK ("top_ups"."provider" in ('simulated','stripe'));
