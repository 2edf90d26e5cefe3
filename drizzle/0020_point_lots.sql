CREATE TABLE "point_lots" (
	"organization_id" text NOT NULL,
	"id" text NOT NULL,
	"category" text NOT NULL,
	"top_up_id" text,
	"grant_id" text,
	"points" integer NOT NULL,
	"remaining" integer NOT NULL,
	"expires_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "point_lots_organization_id_id_pk" PRIMARY KEY("organization_id","id"),
	CONSTRAINT "point_lots_category_check" CHECK ("point_lots"."category" in ('paid','promotional')),
	CONSTRAINT "point_lots_source_check" CHECK (("point_lots"."category" = 'paid' and "point_lots"."grant_id" is null) or ("point_lots"."category" = 'promotional' and "point_lots"."grant_id" is not null and "point_lots"."top_up_id" is null)),
	CONSTRAINT "point_lots_points_check" CHECK ("point_lots"."points" between 1 and 1000000),
	CONSTRAINT "point_lots_remaining_check" CHECK ("point_lots"."remaining" between 0 and "point_lots"."points")
);
--> statement-breakpoint
ALTER TABLE "points_ledger" ADD COLUMN "lots" jsonb;--> statement-breakpoint
ALTER TABLE "point_lots" ADD CONSTRAINT "point_lots_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "point_lots_top_up_idx" ON "point_lots" USING btree ("organization_id","top_up_id") WHERE "point_lots"."top_up_id" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "point_lots_grant_idx" ON "point_lots" USING btree ("organization_id","grant_id") WHERE "point_lots"."grant_id" is not null;--> statement-breakpoint
CREATE INDEX "point_lots_use_idx" ON "point_lots" USING btree ("organization_id","expires_at","category","created_at","id") WHERE "point_lots"."remaining" > 0;--> statement-breakpoint
CREATE FUNCTION points_lots_take(p_org text, p_points integer, p_top_up text, p_paid_only boolean)
RETURNS jsonb LANGUAGE plpgsql VOLATILE AS $$
-- Takes up to p_points from the organisation's lots, in the order of use (docs/contract.md §10): the
-- top-up's own lot first when one is named, then the lot that expires soonest (never last), then
-- promotional before paid, then the oldest; paid lots only when asked. Answers what it took from each
-- lot as [{ lot_id, category, points }], points negative. The caller holds the organisation's row
-- lock. Each query here takes its own snapshot, so lots committed while the caller waited for that
-- lock are seen.
DECLARE
  lot record;
  left_to_take integer := p_points;
  taking integer;
  taken jsonb := '[]'::jsonb;
BEGIN
  IF p_points <= 0 THEN
    RETURN taken;
  END IF;
  FOR lot IN
    SELECT l.id, l.category, l.remaining FROM point_lots l
    WHERE l.organization_id = p_org AND l.remaining > 0 AND (NOT p_paid_only OR l.category = 'paid')
    ORDER BY coalesce(l.top_up_id = p_top_up, false) DESC, l.expires_at ASC NULLS LAST,
      (l.category = 'paid') ASC, l.created_at ASC, l.id ASC
    FOR UPDATE
  LOOP
    EXIT WHEN left_to_take = 0;
    taking := least(lot.remaining, left_to_take);
    UPDATE point_lots SET remaining = remaining - taking WHERE organization_id = p_org AND id = lot.id;
    taken := taken || jsonb_build_array(jsonb_build_object('lot_id', lot.id, 'category', lot.category, 'points', -taking));
    left_to_take := left_to_take - taking;
  END LOOP;
  RETURN taken;
END $$;
--> statement-breakpoint
CREATE FUNCTION points_lots_give(p_org text, p_points integer, p_top_up text, p_from jsonb)
RETURNS jsonb LANGUAGE plpgsql VOLATILE AS $$
-- Gives p_points back to lots, each up to what it has room for: first the lots p_from took them from
-- (a taking's answer), then the top-up's own lot, then the other paid lots, newest first. Answers what
-- it gave to each as [{ lot_id, category, points }]. Refuses, rolling back, when the Points have no lot
-- to go to: the lots must always sum to the balance. The caller holds the organisation's row lock.
DECLARE
  lot record;
  left_to_give integer := p_points;
  giving integer;
  given jsonb := '[]'::jsonb;
BEGIN
  IF p_points <= 0 THEN
    RETURN given;
  END IF;
  FOR lot IN
    SELECT l.id, l.category, l.points - l.remaining AS room FROM point_lots l
    LEFT JOIN (
      SELECT e->>'lot_id' AS lot_id FROM jsonb_array_elements(coalesce(p_from, '[]'::jsonb)) e GROUP BY 1
    ) f ON f.lot_id = l.id
    WHERE l.organization_id = p_org AND l.remaining < l.points AND (f.lot_id IS NOT NULL OR l.category = 'paid')
    ORDER BY (f.lot_id IS NOT NULL) DESC, coalesce(l.top_up_id = p_top_up, false) DESC, l.created_at DESC, l.id DESC
    FOR UPDATE OF l
  LOOP
    EXIT WHEN left_to_give = 0;
    giving := least(lot.room, left_to_give);
    UPDATE point_lots SET remaining = remaining + giving WHERE organization_id = p_org AND id = lot.id;
    given := given || jsonb_build_array(jsonb_build_object('lot_id', lot.id, 'category', lot.category, 'points', giving));
    left_to_give := left_to_give - giving;
  END LOOP;
  IF left_to_give > 0 THEN
    RAISE EXCEPTION 'points_lots_give: % of % Points of organisation % have no lot to go back to', left_to_give, p_points, p_org;
  END IF;
  RETURN given;
END $$;
--> statement-breakpoint
-- Every balance becomes lots, unchanged: one paid lot per paid top-up, and the ledger replayed in the
-- order of use (all lots paid and never expiring, so the oldest first; a refund or a dispute from its
-- own lot first). Credits go first among rows of the same instant.
DO $$
DECLARE
  r record;
BEGIN
  FOR r IN SELECT * FROM points_ledger ORDER BY organization_id, created_at, (kind = 'purchase') DESC, id LOOP
    IF r.kind = 'purchase' THEN
      INSERT INTO point_lots (organization_id, id, category, top_up_id, points, remaining, created_at)
      VALUES (r.organization_id, 'lot_' || r.top_up_id, 'paid', r.top_up_id, r.delta, r.delta, r.created_at);
    ELSIF r.delta < 0 THEN
      PERFORM points_lots_take(r.organization_id, (-r.delta)::integer,
        CASE WHEN r.kind = 'usage' THEN NULL ELSE r.top_up_id END, r.kind <> 'usage');
    ELSIF r.delta > 0 THEN
      PERFORM points_lots_give(r.organization_id, r.delta::integer, r.top_up_id, NULL);
    END IF;
  END LOOP;
  IF EXISTS (
    SELECT 1 FROM organizations o
    WHERE o.points_balance <> coalesce((SELECT sum(l.remaining) FROM point_lots l WHERE l.organization_id = o.id), 0)
  ) THEN
    RAISE EXCEPTION 'migration 0020: the lots of an organisation do not sum to its balance';
  END IF;
END $$;
