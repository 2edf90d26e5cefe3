import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { organizations } from "@/lib/db/schema";
import { randomString } from "@/lib/ids";
import { createOrganization, getOrganization } from "@/lib/points/accounts/organizations";
import { listUsablePaymentMethods } from "@/lib/points/cards/payment-methods";
import { purchasePoints } from "@/lib/points/purchase";
import { backendsAndProviders, type ProviderTestContext } from "@/lib/testing/harness";
import { serviceSuite } from "@/lib/testing/invariants";
import { EXIT_OK, EXIT_REFUSED, EXIT_USAGE, runPointsCli } from "./points";

/*
 * `org update ORG --stripe-customer cus_…` and `--new-stripe-customer`: how an operator mends an
 * organisation whose customer the provider lost, with the same one-customer-one-organisation rule
 * as `org create`. The command runs in-process on the test's database and provider, both of each.
 */
describe.each(backendsAndProviders())(
  "org update relinking the customer on %s with the %s provider",
  (backend, provider) => {
    let ctx: ProviderTestContext;
    const track = serviceSuite(backend, provider, (made) => {
      ctx = made;
    });

    async function points(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
      let stdout = "";
      let stderr = "";
      const io = {
        stdout: (text: string) => {
          stdout += text;
        },
        stderr: (text: string) => {
          stderr += text;
        },
      };
      // The test's own database stays open: the command closes what it was given.
      const runtime = { ...ctx, database: { ...ctx.database, close: async () => {} }, demo: null, leaseMs: 90_000 };
      const code = await runPointsCli(argv, io, { openRuntime: async () => runtime });
      return { code, stdout, stderr };
    }

    async function organization(cards: string[] = ["visa"]) {
      const created = await createOrganization(ctx, {
        name: `Relink ${randomString(4)}`,
        settings: { currency: "USD", apiPurchasesEnabled: true },
        cards,
        ...(cards.length ? { defaultCardIndex: 0 } : {}),
      });
      track(created.organization.id);
      return created.organization;
    }

    const customerOf = async (id: string) => (await getOrganization(ctx.db, id))?.billingCustomerId;
    const lose = (id: string) =>
      ctx.db
        .update(organizations)
        .set({ billingCustomerId: `cus_gone${randomString(8)}` })
        .where(eq(organizations.id, id));

    it("--stripe-customer relinks a customer the provider knows: its cards list and buy at once (--json as §7)", async () => {
      const org = await organization([]);
      await lose(org.id);
      const customer = await ctx.provider.createCustomer({
        organizationId: `org_other${randomString(6)}`,
        name: "Restored",
      });
      const [card] = await ctx.provider.addCards({ customerId: customer, kinds: ["visa"], defaultIndex: 0 });

      const result = await points("org", "update", org.id, "--stripe-customer", customer, "--json");
      expect(result.code, result.stderr).toBe(EXIT_OK);
      expect(JSON.parse(result.stdout)).toEqual({
        organization_id: org.id,
        payment_methods: [{ id: card?.id, label: "Visa •••• 4242", kind: "visa", is_default: true }],
      });
      expect(await customerOf(org.id)).toBe(customer);
      const row = await getOrganization(ctx.db, org.id);
      if (!row) throw new Error("gone");
      expect((await listUsablePaymentMethods(ctx, row)).map((method) => method.id)).toEqual([card?.id]);
      const bought = await purchasePoints(ctx, {
        organization: row,
        request: { points: 100, reference: "relinked" },
        source: "api",
      });
      expect(bought.outcome).toBe("paid_now");
    });

    it("refuses a customer another organisation has: exit 1, nothing changed", async () => {
      const owner = await organization();
      const org = await organization();
      const before = await customerOf(org.id);
      const result = await points(
        "org",
        "update",
        org.id,
        "--stripe-customer",
        owner.billingCustomerId,
        "--currency",
        "EUR",
      );
      expect(result.code).toBe(EXIT_REFUSED);
      expect(result.stderr).toContain(
        `The billing customer ${owner.billingCustomerId} is already linked to another organisation`,
      );
      expect(result.stderr).toContain("Nothing was changed.");
      expect(result.stderr).not.toContain(owner.id);
      const after = await getOrganization(ctx.db, org.id);
      expect(after?.billingCustomerId).toBe(before);
      expect(after?.currency).toBe("USD");
    });

    it("refuses a customer the provider does not know: exit 1, nothing changed", async () => {
      const org = await organization();
      const before = await customerOf(org.id);
      const result = await points("org", "update", org.id, "--stripe-customer", "cus_neverexisted1");
      expect(result.code).toBe(EXIT_REFUSED);
      expect(result.stderr).toContain(
        "--stripe-customer names a customer the billing provider does not know (cus_neverexisted1)",
      );
      expect(await customerOf(org.id)).toBe(before);
    });

    it("org create refuses a customer the provider does not know, as org update does: exit 1, no organisation", async () => {
      const name = `Unknown Customer ${randomString(6)}`;
      const result = await points("org", "create", "--name", name, "--stripe-customer", "cus_neverexisted2");
      expect(result.code).toBe(EXIT_REFUSED);
      expect(result.stderr).toContain(
        "--stripe-customer names a customer the billing provider does not know (cus_neverexisted2)",
      );
      expect(await ctx.db.select().from(organizations).where(eq(organizations.name, name))).toEqual([]);
    });

    it("--new-stripe-customer makes a new customer, with no cards yet, that lists at once", async () => {
      const org = await organization();
      await lose(org.id);
      const result = await points("org", "update", org.id, "--new-stripe-customer", "--json");
      expect(result.code, result.stderr).toBe(EXIT_OK);
      expect(JSON.parse(result.stdout)).toEqual({ organization_id: org.id, payment_methods: [] });
      const customer = await customerOf(org.id);
      expect(customer).toMatch(/^cus_/);
      expect(await ctx.provider.customerExists(customer ?? "")).toBe(true);
      const row = await getOrganization(ctx.db, org.id);
      if (!row) throw new Error("gone");
      expect(await listUsablePaymentMethods(ctx, row)).toEqual([]);
      // A second one is new again, not the first replayed.
      const again = await points("org", "update", org.id, "--new-stripe-customer");
      expect(again.code, again.stderr).toBe(EXIT_OK);
      expect(again.stdout).toContain("billing customer: cus_");
      expect(await customerOf(org.id)).not.toBe(customer);
    });

    it("the two flags are exclusive, and --stripe-customer must look like a customer id: exit 2", async () => {
      const org = await organization();
      const both = await points("org", "update", org.id, "--stripe-customer", "cus_abc", "--new-stripe-customer");
      expect(both.code).toBe(EXIT_USAGE);
      expect(both.stderr).toContain(
        "Use either --stripe-customer cus_… (an existing customer) or --new-stripe-customer, not both.",
      );
      expect((await points("org", "update", org.id, "--stripe-customer", "acct_1")).code).toBe(EXIT_USAGE);
    });
  },
);
