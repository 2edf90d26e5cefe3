import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyPassword } from "@/lib/auth/password";
import { apiKeys, organizations, simCustomers, simPaymentMethods, users } from "@/lib/db/schema";
import { backends, createTestContext, expectThrown, type TestContext } from "@/lib/testing/harness";
import { listUsablePaymentMethods } from "../cards/payment-methods";
import { ProvisioningError } from "../errors";
import { authenticateApiKey } from "./api-keys";
import { addUser } from "./members";
import {
  createOrganization,
  getOrganization,
  listProvisionedPaymentMethods,
  updateOrganization,
} from "./organizations";

describe.each(backends())("organisations on %s", (backend) => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext(backend);
  });
  afterAll(async () => {
    await ctx?.close();
  });

  /** Row counts of everything createOrganization writes, to prove a failed call wrote nothing. */
  async function footprint(): Promise<Record<string, number>> {
    const count = async (
      table: typeof organizations | typeof apiKeys | typeof users | typeof simCustomers | typeof simPaymentMethods,
    ) => {
      const [row] = await ctx.db.select({ n: sql<number>`count(*)::int` }).from(table);
      return row?.n ?? 0;
    };
    return {
      organizations: await count(organizations),
      apiKeys: await count(apiKeys),
      users: await count(users),
      simCustomers: await count(simCustomers),
      simPaymentMethods: await count(simPaymentMethods),
    };
  }

  const provisioningError = (run: () => Promise<unknown>) => expectThrown(ProvisioningError, run);

  const uniqueEmail = (label: string) => `${label}-${Math.random().toString(36).slice(2, 10)}@example.com`;

  describe("createOrganization", () => {
    it("creates the organisation with its settings, cards, default, a working API key and an admin", async () => {
      const email = uniqueEmail("owner");
      const created = await createOrganization(ctx, {
        name: "  Acme Widgets  ",
        settings: {
          currency: "EUR",
          apiPurchasesEnabled: true,
          maxPointsPerTopUp: 1000,
          maxPointsBalance: 10_000,
          frequencyLimit: { count: 5, windowSeconds: 60 },
          dailyPointsLimit: 5000,
        },
        cards: ["visa", "mastercard", "expired"],
        defaultCardIndex: 1,
        adminEmail: email.toUpperCase(),
      });

      expect(created.organization).toMatchObject({
        name: "Acme Widgets",
        currency: "EUR",
        apiAvailable: true,
        apiPurchasesEnabled: true,
        pointsBalance: 0,
        maxPointsPerTopUp: 1000,
        maxPointsBalance: 10_000,
        frequencyLimitCount: 5,
        frequencyLimitWindowSeconds: 60,
        dailyPointsLimit: 5000,
      });
      expect(created.organization.id).toMatch(/^org_/);
      expect(created.paymentMethods.map((m) => [m.label, m.kind, m.isDefault])).toEqual([
        ["Visa •••• 4242", "visa", false],
        ["Mastercard •••• 4444", "mastercard", true],
        ["Visa •••• 0069", "expired", false],
      ]);
      expect((await authenticateApiKey(ctx.db, `Bearer ${created.apiKey.apiKey}`, ctx.clock)).id).toBe(
        created.organization.id,
      );

      expect(created.admin.email).toBe(email);
      const [admin] = await ctx.db.select().from(users).where(eq(users.id, created.admin.userId));
      expect(admin).toMatchObject({ organizationId: created.organization.id, email, role: "admin" });
      expect(admin?.passwordHash).not.toContain(created.admin.password);
      expect(await verifyPassword(created.admin.password, admin?.passwordHash ?? "")).toBe(true);
    });

    it("defaults to available, API purchases disabled, no saved currency and no limits", async () => {
      const { organization, paymentMethods } = await createOrganization(ctx, { name: "Bare" });
      expect(organization).toMatchObject({
        apiAvailable: true,
        apiPurchasesEnabled: false,
        currency: null,
        maxPointsPerTopUp: null,
        maxPointsBalance: null,
        frequencyLimitCount: null,
        frequencyLimitWindowSeconds: null,
        dailyPointsLimit: null,
      });
      expect(paymentMethods).toEqual([]);
    });

    it("leaves no default when no default card index is given", async () => {
      const { paymentMethods } = await createOrganization(ctx, { name: "No Default", cards: ["visa", "mastercard"] });
      expect(paymentMethods.map((m) => m.isDefault)).toEqual([false, false]);
    });

    it("is all or nothing: a duplicate admin email rolls back the organisation, key, customer and cards", async () => {
      const email = uniqueEmail("taken");
      await createOrganization(ctx, { name: "First", adminEmail: email });
      const before = await footprint();

      const error = await provisioningError(() =>
        createOrganization(ctx, {
          name: "Second With Same Admin",
          cards: ["visa", "mastercard"],
          defaultCardIndex: 0,
          adminEmail: `  ${email.toUpperCase()} `,
        }),
      );
      expect(error.message).toContain(email);
      expect(await footprint()).toEqual(before);
      expect(await ctx.db.select().from(organizations).where(eq(organizations.name, "Second With Same Admin"))).toEqual(
        [],
      );
    });

    it.each([
      ["an unknown card kind", { cards: ["visa", "amex"] }, /Unknown --card "amex"/],
      ["a default index past the cards", { cards: ["visa", "mastercard"], defaultCardIndex: 2 }, /below 2/],
      ["a negative default index", { cards: ["visa"], defaultCardIndex: -1 }, /0-based/],
      ["a fractional default index", { cards: ["visa", "visa"], defaultCardIndex: 0.5 }, /0-based/],
      ["a default index without cards", { defaultCardIndex: 0 }, /at least one card/],
      ["a blank name", { name: "   " }, /non-empty/],
      ["an invalid admin email", { adminEmail: "not-an-email" }, /not an email address/],
    ])("refuses %s with a ProvisioningError and creates nothing", async (_label, input, message) => {
      const before = await footprint();
      const error = await provisioningError(() => createOrganization(ctx, { name: "Refused", ...input }));
      expect(error.message).toMatch(message);
      expect(await footprint()).toEqual(before);
    });
  });

  describe("updateOrganization", () => {
    const fullSettings = {
      currency: "GBP",
      apiPurchasesEnabled: true,
      apiAvailable: true,
      maxPointsPerTopUp: 2500,
      maxPointsBalance: 20_000,
      frequencyLimit: { count: 10, windowSeconds: 300 },
      dailyPointsLimit: 7500,
    } as const;

    it("changes only the settings it is given", async () => {
      const created = await createOrganization(ctx, { name: "Settled", settings: fullSettings });
      const { organization } = await updateOrganization(ctx, created.organization.id, {
        settings: { maxPointsBalance: 50_000 },
      });
      expect(organization).toMatchObject({
        currency: "GBP",
        apiPurchasesEnabled: true,
        apiAvailable: true,
        maxPointsPerTopUp: 2500,
        maxPointsBalance: 50_000,
        frequencyLimitCount: 10,
        frequencyLimitWindowSeconds: 300,
        dailyPointsLimit: 7500,
        name: "Settled",
        billingCustomerId: created.organization.billingCustomerId,
      });
    });

    it("clears a setting given as null and leaves the others", async () => {
      const created = await createOrganization(ctx, { name: "Cleared", settings: fullSettings });
      const { organization } = await updateOrganization(ctx, created.organization.id, {
        settings: { currency: null, frequencyLimit: null },
      });
      expect(organization).toMatchObject({
        currency: null,
        frequencyLimitCount: null,
        frequencyLimitWindowSeconds: null,
        maxPointsPerTopUp: 2500,
        dailyPointsLimit: 7500,
      });
      expect(await getOrganization(ctx.db, created.organization.id)).toEqual(organization);
    });

    it("with no input changes no setting and no card", async () => {
      const created = await createOrganization(ctx, {
        name: "Untouched",
        settings: fullSettings,
        cards: ["visa", "mastercard"],
        defaultCardIndex: 1,
      });
      const { organization, paymentMethods } = await updateOrganization(ctx, created.organization.id, {});
      const { updatedAt: _before, ...expected } = created.organization;
      expect(organization).toMatchObject(expected);
      expect(paymentMethods).toEqual(created.paymentMethods);
    });

    it("moves the default card to the given index, which the purchase listing then puts first", async () => {
      const created = await createOrganization(ctx, {
        name: "New Default",
        cards: ["visa", "mastercard"],
        defaultCardIndex: 0,
      });
      const { paymentMethods } = await updateOrganization(ctx, created.organization.id, { defaultCardIndex: 1 });
      expect(paymentMethods.map((m) => m.isDefault)).toEqual([false, true]);
      const usable = await listUsablePaymentMethods(ctx, created.organization);
      expect(usable[0]?.id).toBe(created.paymentMethods[1]?.id);
    });

    it("switches the simulated outage on and off, while the operator still sees the cards", async () => {
      const created = await createOrganization(ctx, { name: "Flaky", cards: ["visa"], defaultCardIndex: 0 });
      const during = await updateOrganization(ctx, created.organization.id, { simulateOutage: true });
      expect(during.paymentMethods).toHaveLength(1);
      await expect(listUsablePaymentMethods(ctx, created.organization)).rejects.toMatchObject({
        code: "payment_methods_unavailable",
      });
      expect(await listProvisionedPaymentMethods(ctx, created.organization)).toHaveLength(1);

      await updateOrganization(ctx, created.organization.id, { simulateOutage: false });
      expect(await listUsablePaymentMethods(ctx, created.organization)).toHaveLength(1);
    });

    it.each([
      ["past the cards", 2],
      ["negative", -1],
    ])("refuses a default card index %s and changes nothing", async (_label, defaultCardIndex) => {
      const created = await createOrganization(ctx, {
        name: "Bad Index",
        settings: { currency: "USD" },
        cards: ["visa", "mastercard"],
        defaultCardIndex: 0,
      });
      await provisioningError(() =>
        updateOrganization(ctx, created.organization.id, { defaultCardIndex, settings: { currency: "EUR" } }),
      );
      expect((await getOrganization(ctx.db, created.organization.id))?.currency).toBe("USD");
      expect((await listProvisionedPaymentMethods(ctx, created.organization)).map((m) => m.isDefault)).toEqual([
        true,
        false,
      ]);
    });

    it("refuses an unknown organisation with a ProvisioningError", async () => {
      const error = await provisioningError(() =>
        updateOrganization(ctx, "org_doesnotexist", { settings: { currency: "USD" } }),
      );
      expect(error.message).toContain("org_doesnotexist");
    });
  });

  describe("addUser", () => {
    it("adds a member with a generated password that verifies", async () => {
      const created = await createOrganization(ctx, { name: "Team" });
      const email = uniqueEmail("member");
      const user = await addUser(ctx, created.organization.id, { email, role: "member" });
      expect(user).toMatchObject({ email, role: "member" });
      const [row] = await ctx.db.select().from(users).where(eq(users.id, user.userId));
      expect(await verifyPassword(user.password, row?.passwordHash ?? "")).toBe(true);
    });

    it.each([
      ["an unknown role", { role: "owner" }],
      ["an invalid email", { email: "nope" }],
    ])("refuses %s with a ProvisioningError", async (_label, change) => {
      const created = await createOrganization(ctx, { name: "Team" });
      await provisioningError(() =>
        addUser(ctx, created.organization.id, { email: uniqueEmail("x"), role: "member", ...change }),
      );
    });

    it("refuses an email already in use, whatever its case", async () => {
      const created = await createOrganization(ctx, { name: "Team" });
      await provisioningError(() =>
        addUser(ctx, created.organization.id, { email: created.admin.email.toUpperCase(), role: "member" }),
      );
    });

    it("refuses an unknown organisation", async () => {
      await provisioningError(() => addUser(ctx, "org_nope", { email: uniqueEmail("y"), role: "admin" }));
    });
  });
});
