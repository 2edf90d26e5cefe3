ALTER TABLE "users" ADD COLUMN "session_version" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Two organisations on one billing customer share its cards: refuse to migrate with their IDs
-- named, rather than fail on the index below with a bare duplicate-key error.
DO $$
DECLARE shared text;
BEGIN
  SELECT string_agg(billing_customer_id || ' (' || ids || ')', '; ') INTO shared
  FROM (SELECT billing_customer_id, string_agg(id, ', ' ORDER BY id) AS ids
        FROM organizations GROUP BY billing_customer_id HAVING count(*) > 1) AS duplicates;
  IF shared IS NOT NULL THEN
    RAISE EXCEPTION 'Organisations share a billing customer: %. Each organisation needs a customer of its own: change the others'' billing_customer_id, then migrate again.', shared;
  END IF;
END $$;--> statement-breakpoint
CREATE UNIQUE INDEX "organizations_billing_customer_idx" ON "organizations" USING btree ("billing_customer_id");
