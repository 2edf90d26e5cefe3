CREATE TABLE "api_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"prefix" text NOT NULL,
	"hash" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_used_at" timestamp with time zone,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "organizations" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"currency" text,
	"api_purchases_enabled" boolean DEFAULT false NOT NULL,
	"api_available" boolean DEFAULT true NOT NULL,
	"points_balance" integer DEFAULT 0 NOT NULL,
	"max_points_per_top_up" integer,
	"max_points_balance" integer,
	"frequency_limit_count" integer,
	"frequency_limit_window_seconds" integer,
	"daily_points_limit" integer,
	"billing_customer_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "organizations_currency_check" CHECK ("organizations"."currency" in ('USD','GBP','EUR'))
);
--> statement-breakpoint
CREATE TABLE "points_ledger" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"top_up_id" text,
	"delta" integer NOT NULL,
	"balance_after" integer NOT NULL,
	"reason" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sim_customers" (
	"id" text PRIMARY KEY NOT NULL,
	"default_payment_method_id" text,
	"outage" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sim_payment_methods" (
	"id" text PRIMARY KEY NOT NULL,
	"customer_id" text NOT NULL,
	"kind" text NOT NULL,
	"brand" text NOT NULL,
	"last4" text NOT NULL,
	"exp_month" integer NOT NULL,
	"exp_year" integer NOT NULL,
	"detached_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sim_payments" (
	"id" text PRIMARY KEY NOT NULL,
	"idempotency_key" text NOT NULL,
	"customer_id" text NOT NULL,
	"payment_method_id" text NOT NULL,
	"amount" integer NOT NULL,
	"currency" text NOT NULL,
	"status" text NOT NULL,
	"failure_code" text,
	"failure_message" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "top_ups" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"reference" text NOT NULL,
	"points" integer NOT NULL,
	"currency" text NOT NULL,
	"amount" integer NOT NULL,
	"payment_source_id" text NOT NULL,
	"billing_customer_id" text NOT NULL,
	"source" text NOT NULL,
	"status" text NOT NULL,
	"failure_code" text,
	"failure_message" text,
	"provider_idempotency_key" text NOT NULL,
	"provider_payment_id" text,
	"charge_attempted_at" timestamp with time zone,
	"lock_token" text,
	"locked_until" timestamp with time zone,
	"attempts" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"paid_at" timestamp with time zone,
	CONSTRAINT "top_ups_status_check" CHECK ("top_ups"."status" in ('pending','processing','awaiting_payment','failed','paid')),
	CONSTRAINT "top_ups_source_check" CHECK ("top_ups"."source" in ('api','dashboard')),
	CONSTRAINT "top_ups_currency_check" CHECK ("top_ups"."currency" in ('USD','GBP','EUR')),
	CONSTRAINT "top_ups_points_check" CHECK ("top_ups"."points" > 0)
);
--> statement-breakpoint
CREATE TABLE "users" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"email" text NOT NULL,
	"password_hash" text NOT NULL,
	"role" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "users_role_check" CHECK ("users"."role" in ('admin','member'))
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "points_ledger" ADD CONSTRAINT "points_ledger_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "points_ledger" ADD CONSTRAINT "points_ledger_top_up_id_top_ups_id_fk" FOREIGN KEY ("top_up_id") REFERENCES "public"."top_ups"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sim_payment_methods" ADD CONSTRAINT "sim_payment_methods_customer_id_sim_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."sim_customers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "top_ups" ADD CONSTRAINT "top_ups_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "users" ADD CONSTRAINT "users_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_hash_idx" ON "api_keys" USING btree ("hash");--> statement-breakpoint
CREATE INDEX "api_keys_organization_idx" ON "api_keys" USING btree ("organization_id");--> statement-breakpoint
CREATE UNIQUE INDEX "points_ledger_top_up_idx" ON "points_ledger" USING btree ("top_up_id");--> statement-breakpoint
CREATE INDEX "points_ledger_organization_idx" ON "points_ledger" USING btree ("organization_id","created_at");--> statement-breakpoint
CREATE INDEX "sim_payment_methods_customer_idx" ON "sim_payment_methods" USING btree ("customer_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "sim_payments_idempotency_key_idx" ON "sim_payments" USING btree ("idempotency_key");--> statement-breakpoint
CREATE UNIQUE INDEX "top_ups_organization_reference_idx" ON "top_ups" USING btree ("organization_id","reference");--> statement-breakpoint
CREATE UNIQUE INDEX "top_ups_provider_payment_idx" ON "top_ups" USING btree ("provider_payment_id");--> statement-breakpoint
CREATE INDEX "top_ups_organization_created_idx" ON "top_ups" USING btree ("organization_id","created_at","id");--> statement-breakpoint
CREATE INDEX "top_ups_unresolved_idx" ON "top_ups" USING btree ("status","locked_until") WHERE "top_ups"."status" in ('pending','processing','awaiting_payment');--> statement-breakpoint
CREATE UNIQUE INDEX "users_email_idx" ON "users" USING btree ("email");