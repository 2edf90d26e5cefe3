import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyPassword } from "@/lib/auth/password";
import { systemClock } from "@/lib/clock";
import { auditLog, organizations, users } from "@/lib/db/schema";
import { authenticateApiKey, authenticateApiRequest, listApiKeys } from "@/lib/points/accounts/api-keys";
import { listUsablePaymentMethods } from "@/lib/points/cards/payment-methods";
import { backends } from "@/lib/testing/harness";
import {
  createTarget,
  errorCode,
  expectRefused,
  organizationRow,
  outageOf,
  parseJsonOutput,
  run,
  SPAWNING_TIMEOUT_MS,
  snapshot,
  sortedKeys,
  type Target,
  TSX,
} from "@/lib/testing/points-cli-fixture";

/*
 * The command against the same kind of database the app uses, then the database (and what the REST
 * layer's authentication makes of a printed key) read to check that what was printed is what
 * happened. Commands run in this process (Target.points: runPointsCli on the runtime the command
 * would open); db:migrate (tsx) and `npm run -s points` as processes, as an operator runs them. A
 * process's stdout and stderr are checked in points-cli-environment.test.ts (its answer alone) and
 * after-payment-cli.test.ts (a log line); `org spend` and `reconcile` in spend-reconcile-cli.test.ts.
 */

describe.each(backends())(
  "npm run points against %s",
  { concurrent: true, timeout: SPAWNING_TIMEOUT_MS },
  (backend) => {
    // The checks below build on one another (one database per backend), so they run in order.
    describe.sequential("provisioning", () => {
      let target: Target;
      const points = (...args: string[]) => target.points(args);
      // Set by org create, which the later checks build on.
      let full: { organization_id: string; api_key: string; key_id: string };
      let plain: { id: string; key: string };

      beforeAll(async () => {
        target = await createTarget(backend);
      });
      afterAll(async () => target?.dispose());

      it("db:migrate migrates a new database, says so in one line, and seeds nothing", async () => {
        await target.release();
        const result = await run(TSX, ["scripts/db-migrate.ts"], target.env);
        expect(result.code, result.stderr).toBe(0);
        expect(result.stdout).toMatch(
          backend === "pglite"
            ? /^Migrated the embedded database in \S+pglite\.\n$/
            : /^Migrated the Postgres database at postgres:\/\/\S+\.\n$/,
        );
        await target.withDb(async (services) => {
          expect(await services.db.select().from(organizations)).toEqual([]);
        });
      });

      it("org create prints the contract's JSON (or the same facts for a person) and the organisation is as asked", async () => {
        const output = parseJsonOutput(
          await points(
            "org",
            "create",
            "--name",
            "Acme Ltd",
            "--card",
            "visa",
            "--card",
            "declined",
            "--card=expired",
            "--default-card",
            "1",
            "--currency",
            "GBP",
            "--api-purchases",
            "enabled",
            "--max-points-per-top-up",
            "1000",
            "--max-points-balance",
            "5000",
            "--frequency-limit",
            "3/60",
            "--daily-points-limit=2500",
            "--json",
          ),
        );
        expect(sortedKeys(output)).toEqual(["admin", "api_key", "key_id", "organization_id", "payment_methods"]);
        expect(output.organization_id).toMatch(/^org_/);
        expect(output.api_key).toMatch(/^pts_[A-Za-z0-9]{40}$/);
        expect(output.key_id).toMatch(/^key_/);
        const methods = output.payment_methods as Record<string, unknown>[];
        expect(methods.map(sortedKeys)).toEqual(Array(3).fill(["id", "is_default", "kind", "label"]));
        expect(methods.map((method) => [method.kind, method.label, method.is_default])).toEqual([
          ["visa", "Visa •••• 4242", false],
          ["declined", "Visa •••• 0002", true],
          ["expired", "Visa •••• 0069", false],
        ]);
        const admin = output.admin as { email: string; password: string };
        expect(sortedKeys(admin)).toEqual(["email", "password"]);
        full = output as typeof full;

        // Without options: API purchases disabled, available, no limits, no cards.
        const readable = await points("org", "create", "--name", "Plain");
        expect(readable.code, readable.stderr).toBe(0);
        plain = {
          id: /Created organisation (org_\w+)/.exec(readable.stdout)?.[1] ?? "(none printed)",
          key: /pts_[A-Za-z0-9]{40}/.exec(readable.stdout)?.[0] ?? "(none printed)",
        };
        expect(readable.stdout).toMatch(/password:\s+\S{20}/);

        await target.withDb(async (services) => {
          const organization = await authenticateApiRequest(services.db, `Bearer ${full.api_key}`, systemClock);
          expect(organization).toMatchObject({
            id: full.organization_id,
            name: "Acme Ltd",
            currency: "GBP",
            apiPurchasesEnabled: true,
            apiAvailable: true,
            maxPointsPerTopUp: 1000,
            maxPointsBalance: 5000,
            frequencyLimitCount: 3,
            frequencyLimitWindowSeconds: 60,
            dailyPointsLimit: 2500,
          });
          // What GET /v3/points/payment-methods lists: not the expired card, and the default first.
          const usable = await listUsablePaymentMethods(services, organization);
          expect(usable.map((method) => [method.id, method.isDefault])).toEqual([
            [methods[1]?.id, true],
            [methods[0]?.id, false],
          ]);
          const [user] = await services.db.select().from(users).where(eq(users.email, admin.email));
          expect(user?.role).toBe("admin");
          expect(await verifyPassword(admin.password, user?.passwordHash ?? "")).toBe(true);

          expect(await errorCode(authenticateApiRequest(services.db, `Bearer ${plain.key}`, systemClock))).toBe(
            "api_purchases_disabled",
          );
          expect(await organizationRow(services.db, plain.id)).toMatchObject({
            currency: null,
            apiAvailable: true,
            maxPointsPerTopUp: null,
            maxPointsBalance: null,
            frequencyLimitCount: null,
            frequencyLimitWindowSeconds: null,
            dailyPointsLimit: null,
          });
          expect(await outageOf(services.db, plain.id)).toBe(false);
        });
      });

      it("org update sets each option, none clears it, and the REST checks follow", async () => {
        const set = parseJsonOutput(
          await points(
            "org",
            "update",
            plain.id,
            "--currency=EUR",
            "--api-purchases",
            "enabled",
            "--available=yes",
            "--max-points-per-top-up",
            "500",
            "--max-points-balance=10000",
            "--frequency-limit",
            "5/30",
            "--daily-points-limit",
            "1000",
            "--simulate-outage",
            "on",
            "--json",
          ),
        );
        expect(set).toEqual({ organization_id: plain.id, payment_methods: [] });

        const cleared = parseJsonOutput(
          await points(
            "org",
            "update",
            full.organization_id,
            "--currency",
            "none",
            "--max-points-per-top-up",
            "none",
            "--max-points-balance",
            "none",
            "--frequency-limit",
            "none",
            "--daily-points-limit=none",
            "--available",
            "no",
            "--api-purchases",
            "disabled",
            "--default-card",
            "0",
            "--simulate-outage",
            "off",
            "--json",
          ),
        );
        expect(sortedKeys(cleared)).toEqual(["organization_id", "payment_methods"]);
        const methods = cleared.payment_methods as { kind: string; is_default: boolean }[];
        expect(methods.map((method) => [method.kind, method.is_default])).toEqual([
          ["visa", true],
          ["declined", false],
          ["expired", false],
        ]);

        await target.withDb(async (services) => {
          // Enabled now, so the key passes steps 1-3; the outage makes the provider unable to list (502).
          const organization = await authenticateApiRequest(services.db, `Bearer ${plain.key}`, systemClock);
          expect(organization).toMatchObject({
            currency: "EUR",
            apiAvailable: true,
            maxPointsPerTopUp: 500,
            maxPointsBalance: 10000,
            frequencyLimitCount: 5,
            frequencyLimitWindowSeconds: 30,
            dailyPointsLimit: 1000,
          });
          expect(await errorCode(listUsablePaymentMethods(services, organization))).toBe("payment_methods_unavailable");

          expect(await organizationRow(services.db, full.organization_id)).toMatchObject({
            currency: null,
            apiPurchasesEnabled: false,
            apiAvailable: false,
            maxPointsPerTopUp: null,
            maxPointsBalance: null,
            frequencyLimitCount: null,
            frequencyLimitWindowSeconds: null,
            dailyPointsLimit: null,
          });
          // Eligibility is checked before the saved switch: 404 not_available.
          expect(await errorCode(authenticateApiRequest(services.db, `Bearer ${full.api_key}`, systemClock))).toBe(
            "not_available",
          );
          expect(await outageOf(services.db, full.organization_id)).toBe(false);
        });
      });

      it("key create prints a working key once (also through npm run -s) and key revoke stops the old key", async () => {
        await target.release();
        // npm run -s adds nothing to stdout, so a script can pipe --json straight into a parser.
        const created = await run(
          "npm",
          ["run", "-s", "points", "--", "key", "create", full.organization_id, "--json"],
          target.env,
        );
        expect(created.code, created.stderr).toBe(0);
        const output = JSON.parse(created.stdout) as Record<string, string>;
        expect(sortedKeys(output)).toEqual(["api_key", "daily_points_cap", "key_id", "organization_id", "scope"]);
        expect(output).toMatchObject({
          organization_id: full.organization_id,
          scope: "purchase",
          daily_points_cap: null,
        });

        const revoked = await points("key", "revoke", full.key_id);
        expect(revoked.code, revoked.stderr).toBe(0);
        expect(revoked.stdout).toContain(full.key_id);

        await target.withDb(async (services) => {
          expect(await errorCode(authenticateApiKey(services.db, `Bearer ${full.api_key}`, systemClock))).toBe(
            "invalid_api_key",
          );
          const organization = await authenticateApiKey(services.db, `Bearer ${output.api_key}`, systemClock);
          expect(organization.id).toBe(full.organization_id);
        });
      });

      it("key create makes a spend key, which takes no daily cap", async () => {
        const spend = parseJsonOutput(
          await points("key", "create", full.organization_id, "--scope", "spend", "--json"),
        );
        expect(spend).toMatchObject({ scope: "spend", daily_points_cap: null });
        const capped = await points(
          "key",
          "create",
          full.organization_id,
          "--scope",
          "spend",
          "--daily-points-cap",
          "9",
        );
        expect(capped.code).not.toBe(0);
        expect(capped.stderr).toMatch(/must be empty for a spend key/);
      });

      it("key create makes a read key, or one with its own daily Points cap, and says so", async () => {
        const read = parseJsonOutput(await points("key", "create", full.organization_id, "--scope", "read", "--json"));
        expect(read).toMatchObject({ scope: "read", daily_points_cap: null });
        const capped = await points("key", "create", full.organization_id, "--daily-points-cap", "2500");
        expect(capped.code, capped.stderr).toBe(0);
        expect(capped.stdout).toMatch(/scope: +purchase\n/);
        expect(capped.stdout).toMatch(/daily cap: 2500 Points in 24 hours/);
        const cappedKeyId = /Created API key (\S+) /.exec(capped.stdout)?.[1];
        await target.withDb(async (services) => {
          const keys = new Map((await listApiKeys(services.db, full.organization_id)).map((key) => [key.id, key]));
          expect(keys.get(String(read.key_id))).toMatchObject({ scope: "read", dailyPointsCap: null });
          expect(keys.get(cappedKeyId ?? "")).toMatchObject({ scope: "purchase", dailyPointsCap: 2500 });
        });
        // A read key cannot buy, so it takes no cap: refused, nothing created.
        const before = await target.withDb(
          async (services) => (await listApiKeys(services.db, full.organization_id)).length,
        );
        const readCapped = await points(
          "key",
          "create",
          full.organization_id,
          "--scope",
          "read",
          "--daily-points-cap",
          "100",
        );
        expect(readCapped.code).not.toBe(0);
        expect(readCapped.stderr).toMatch(/daily-points-cap.*read key/);
        expect(
          await target.withDb(async (services) => (await listApiKeys(services.db, full.organization_id)).length),
        ).toBe(before);
      });

      it("user add prints the generated password once, and it signs that user in", async () => {
        const output = parseJsonOutput(
          await points(
            "user",
            "add",
            full.organization_id,
            "--email",
            " New.Person@Example.COM ",
            "--role=member",
            "--json",
          ),
        );
        expect(sortedKeys(output)).toEqual(["email", "password", "role", "user_id"]);
        expect(output).toMatchObject({ email: "new.person@example.com", role: "member" });
        await target.withDb(async (services) => {
          const [user] = await services.db
            .select()
            .from(users)
            .where(eq(users.id, String(output.user_id)));
          expect(user).toMatchObject({
            organizationId: full.organization_id,
            email: "new.person@example.com",
            role: "member",
          });
          expect(await verifyPassword(String(output.password), user?.passwordHash ?? "")).toBe(true);
        });
      });

      it("user reset-password prints a new password once, by ID or email: the old one and its sessions end, audited", async () => {
        const added = parseJsonOutput(
          await points(
            "user",
            "add",
            full.organization_id,
            "--email",
            "forgetful@example.com",
            "--role",
            "admin",
            "--json",
          ),
        );
        const byEmail = parseJsonOutput(
          await points("user", "reset-password", "--email", " Forgetful@Example.COM ", "--json"),
        );
        expect(sortedKeys(byEmail)).toEqual(["email", "organization_id", "password", "user_id"]);
        expect(byEmail).toMatchObject({
          user_id: added.user_id,
          organization_id: full.organization_id,
          email: "forgetful@example.com",
        });
        const byId = await points("user", "reset-password", String(added.user_id));
        expect(byId.code).toBe(0);
        expect(byId.stdout).toContain(`Reset the password of forgetful@example.com (${added.user_id})`);
        const password = /password: {2}(\S+) {2}\(shown only now\)/.exec(byId.stdout)?.[1] ?? "";
        await target.withDb(async (services) => {
          const [user] = await services.db
            .select()
            .from(users)
            .where(eq(users.id, String(added.user_id)));
          expect(await verifyPassword(password, user?.passwordHash ?? "")).toBe(true);
          expect(await verifyPassword(String(added.password), user?.passwordHash ?? "")).toBe(false);
          expect(await verifyPassword(String(byEmail.password), user?.passwordHash ?? "")).toBe(false);
          // Two resets: the session version moved on twice, which ends every session signed before.
          expect(user?.sessionVersion).toBeGreaterThanOrEqual(2);
          const entries = await services.db
            .select()
            .from(auditLog)
            .where(and(eq(auditLog.target, String(added.user_id)), eq(auditLog.action, "member.password_reset")));
          expect(entries).toHaveLength(2);
          expect(entries[0]).toMatchObject({ actorType: "operator", organizationId: full.organization_id });
        });
        const unknown = await points("user", "reset-password", "--email", "nobody@example.com");
        expect(unknown.code).not.toBe(0);
        expect(unknown.stderr).toContain("No user nobody@example.com.");
      });

      it("org create --admin-email makes that admin, who signs in with the password printed once; a taken email makes nothing", async () => {
        const output = parseJsonOutput(
          await points("org", "create", "--name", "Named Admin", "--admin-email", " Owner@Named.Example ", "--json"),
        );
        expect(output.admin).toMatchObject({ email: "owner@named.example" });
        const password = String((output.admin as { password: string }).password);
        await target.withDb(async (services) => {
          const [admin] = await services.db.select().from(users).where(eq(users.email, "owner@named.example"));
          expect(admin).toMatchObject({ organizationId: output.organization_id, role: "admin" });
          expect(await verifyPassword(password, admin?.passwordHash ?? "")).toBe(true);
        });
        const before = await target.withDb((services) => snapshot(services.db));
        const [taken, malformed] = await target.runAll([
          ["org", "create", "--name", "Second", "--admin-email", "owner@named.example", "--card", "visa"],
          ["org", "create", "--name", "Third", "--admin-email", "not an address"],
        ]);
        expectRefused(taken, /A user with the email owner@named\.example already exists/);
        expectRefused(malformed, /"not an address" is not an email address/);
        expect(await target.withDb((services) => snapshot(services.db))).toEqual(before);
      });

      it("refuses what only the database can tell is wrong, exits non-zero with the reason, and changes nothing", async () => {
        const before = await target.withDb((services) => snapshot(services.db));
        const results = await target.runAll([
          ["user", "add", plain.id, "--email", "new.person@example.com", "--role", "admin", "--json"],
          ["org", "update", "org_doesnotexist", "--currency", "USD"],
          ["key", "create", "org_doesnotexist", "--json"],
          ["key", "revoke", full.key_id],
          ["org", "create", "--name", "Two cards", "--card", "visa", "--card", "mastercard", "--default-card", "2"],
          // Plain has no saved cards, so no index can name one; the currency must not be saved either.
          ["org", "update", plain.id, "--default-card", "0", "--currency", "USD"],
        ]);
        const expected = [
          /A user with the email new\.person@example\.com already exists/,
          /No organisation org_doesnotexist/,
          /No organisation org_doesnotexist/,
          /No active API key key_\w+: it does not exist or was already revoked/,
          /--default-card must be a 0-based index below 2/,
          /--default-card needs at least one card/,
        ];
        for (const [index, result] of results.entries()) expectRefused(result, expected[index] ?? /never/);
        expect(await target.withDb((services) => snapshot(services.db))).toEqual(before);
      });
    });
  },
);
