ALTER TABLE "webhook_endpoints" ADD COLUMN "retired_secrets" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
UPDATE "webhook_endpoints" SET "retired_secrets" = jsonb_build_array(jsonb_build_object(
	'secret', "previous_secret",
	'signs_until', to_char("previous_secret_expires_at" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
)) WHERE "previous_secret" IS NOT NULL AND "previous_secret_expires_at" > now();
