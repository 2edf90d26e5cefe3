import { eq } from "drizzle-orm";
import Stripe from "stripe";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ProviderRefusedError } from "@/lib/billing/provider";
import { StripeBillingProvider } from "@/lib/billing/stripe/provider";
import { organizations, topUps } from "@/lib/db/schema";
import { errorResponse } from "@/lib/http/api";
import { randomString } from "@/lib/ids";
import { createLogger, replaceLogger } from "@/lib/observability/log";
import {
  backendsAndProviders,
  expectPointsError,
  type ProviderTestContext,
  patchProvider,
  withProvider,
} from "@/lib/testing/harness";
import { serviceSuite } from "@/lib/testing/invariants";
import { createOrganization, getOrganization, updateOrganization } from "../accounts/organizations";
import { purchasePoints } from "../purchase";
import { getPriceTable } from "../purchase/prices";
import type { Services } from "../services";
import { billingProblemNotice, forgetBillingProblems } from "./billing-problems";
import { currentBillingProblem } from "./billing-status";
import { startAddingCard } from "./card-setup";
import { getPaymentDetails } from "./payment-details";
import { listUsablePaymentMethods } from "./payment-methods";
import { getSettings } from "./settings";

/*
 * A provider that refuses for a lasting reason (it lost the organisation's customer, or refuses the
 * service's key) is not an outage: 409 with its own code and no Retry-After, nothing recorded, and
 * one log line per cause for the operator, on both providers and both databases.
 */
describe.each(backendsAndProviders())("lasting billing refusals on %s with the %s provider", (backend, provider) => {
  let ctx: ProviderTestContext;
  const track = serviceSuite(backend, provider, (made) => {
    ctx = made;
  });
  /** The service's log lines (pino), as an operator reads them. */
  const lines: Record<string, unknown>[] = [];
  beforeAll(() => {
    replaceLogger(
      createLogger({ level: "info", destination: { write: (line: string) => void lines.push(JSON.parse(line)) } }),
    );
  });
  afterAll(() => replaceLogger(createLogger({ level: "silent" })));
  afterEach(() => {
    lines.length = 0;
  });
  const logged = (pattern: RegExp) =>
    lines
      .filter((line) => line.level === "error")
      .map((line) => String(line.msg))
      .filter((msg) => pattern.test(msg));

  async function organization() {
    const created = await createOrganization(ctx, {
      name: `Refusals ${randomString(4)}`,
      settings: { currency: "USD", apiPurchasesEnabled: true },
      cards: ["visa"],
      defaultCardIndex: 0,
    });
    track(created.organization.id);
    return created.organization;
  }

  /** The organisation's customer as the provider no longer knows it (keys moved from test to live, say). */
  async function loseCustomer(organizationId: string): Promise<string> {
    const gone = `cus_gone${randomString(10)}`;
    await ctx.db.update(organizations).set({ billingCustomerId: gone }).where(eq(organizations.id, organizationId));
    return gone;
  }

  const buy = async (services: Services, organizationId: string, reference: string) => {
    const row = await getOrganization(ctx.db, organizationId);
    if (!row) throw new Error("organisation vanished");
    return purchasePoints(services, { organization: row, request: { points: 100, reference }, source: "api" });
  };

  it("a lost customer: a purchase answers 409 billing_customer_missing, no Retry-After, nothing recorded", async () => {
    const org = await organization();
    const gone = await loseCustomer(org.id);
    const error = await expectPointsError(() => buy(ctx, org.id, "lost-1"));
    expect(error.code).toBe("billing_customer_missing");
    const response = errorResponse(error, "req_test");
    expect(response.status).toBe(409);
    expect(response.headers.get("Retry-After")).toBeNull();
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("billing_customer_missing");
    expect(body.error.message).toMatch(/operator/);
    expect(body.error.message).not.toContain(gone);
    expect(await ctx.db.select().from(topUps).where(eq(topUps.organizationId, org.id))).toEqual([]);
    expect(await currentBillingProblem(ctx, { id: org.id, billingCustomerId: gone })).toBe("billing_customer_missing");
  });

  it("the dashboard's pages learn the problem (Payment details, Settings, Add a card), not an outage", async () => {
    const org = await organization();
    await loseCustomer(org.id);
    expect(await getPaymentDetails(ctx, org.id)).toMatchObject({
      status: "refused",
      problem: "billing_customer_missing",
    });
    expect(await getSettings(ctx, org.id)).toMatchObject({
      paymentMethods: null,
      billingProblem: "billing_customer_missing",
    });
    if (ctx.provider.startCardSetup) {
      const error = await expectPointsError(() => startAddingCard(ctx, org.id, "http://127.0.0.1"));
      expect(error.code).toBe("billing_customer_missing");
    }
    const notice = billingProblemNotice("billing_customer_missing", ctx.provider);
    expect(notice.title).toBe("Payments are unavailable right now");
    expect(notice.body).toContain("no longer knows this organisation's customer account");
    expect(notice.body).toContain("Contact support");
  });

  it("tells an organisation's admins in their words, never a command or a setting; the log tells the operator", async () => {
    const org = await organization();
    const gone = await loseCustomer(org.id);
    forgetBillingProblems(gone);
    await expectPointsError(() => listUsablePaymentMethods(ctx, { id: org.id, billingCustomerId: gone }));
    for (const code of ["billing_customer_missing", "billing_credentials_refused"] as const) {
      const { title, body } = billingProblemNotice(code, ctx.provider);
      for (const operatorOnly of [
        "npm run",
        "points --",
        "--stripe-customer",
        "STRIPE_SECRET_KEY",
        "operator",
        gone,
        org.id,
      ]) {
        expect(`${title} ${body}`, code).not.toContain(operatorOnly);
      }
    }
    const [line] = lines.filter((logLine) => String(logLine.msg).includes(gone));
    expect(line).toMatchObject({
      level: "error",
      organization_id: org.id,
      customer_id: gone,
      event: "billing_problem",
      reason: "customer_missing",
    });
    expect(String(line?.msg)).toContain(
      `npm run points -- org update ${org.id} --stripe-customer cus_… or --new-stripe-customer`,
    );
  });

  it("a paid purchase still replays (200) after its customer is lost", async () => {
    const org = await organization();
    expect((await buy(ctx, org.id, "paid-then-lost")).outcome).toBe("paid_now");
    await loseCustomer(org.id);
    const replay = await buy(ctx, org.id, "paid-then-lost");
    expect(replay.outcome).toBe("paid");
    expect(replay.replayed).toBe(true);
    // The invariants look the payment up by the organisation's customer.
    await ctx.db
      .update(organizations)
      .set({ billingCustomerId: org.billingCustomerId })
      .where(eq(organizations.id, org.id));
  });

  it("logs a lost customer once over many requests, with how to relink it; again once it was mended and lost again", async () => {
    const org = await organization();
    const original = org.billingCustomerId;
    const gone = await loseCustomer(org.id);
    for (let i = 0; i < 4; i += 1) {
      await expectPointsError(() => listUsablePaymentMethods(ctx, { id: org.id, billingCustomerId: gone }));
      await expectPointsError(() => buy(ctx, org.id, `many-${i}`));
    }
    const lines = logged(new RegExp(`^billing: .* has no customer ${gone}`));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`(organisation ${org.id})`);
    expect(lines[0]).toContain(
      `npm run points -- org update ${org.id} --stripe-customer cus_… or --new-stripe-customer`,
    );
    if (provider === "stripe") expect(lines[0]).toMatch(/: resource_missing, request req_\w+\. Relink/);

    await updateOrganization(ctx, org.id, { billingCustomer: { link: original } });
    expect(await listUsablePaymentMethods(ctx, { id: org.id, billingCustomerId: original })).toHaveLength(1);
    expect((await buy(ctx, org.id, "mended")).outcome).toBe("paid_now");
    // The same customer id lost again (it is relinked to it below) is a new occurrence: logged again.
    await ctx.db.update(organizations).set({ billingCustomerId: gone }).where(eq(organizations.id, org.id));
    forgetBillingProblems(gone);
    await expectPointsError(() => buy(ctx, org.id, "lost-again"));
    expect(logged(new RegExp(`has no customer ${gone}`))).toHaveLength(2);
    await ctx.db.update(organizations).set({ billingCustomerId: original }).where(eq(organizations.id, org.id));
  });

  it("a refused key: cards and prices answer 409 billing_credentials_refused, logged once, never the key", async () => {
    const org = await organization();
    const badKey = `sk_test_refused-${randomString(8)}`;
    const fake = ctx.stripe?.fake;
    const refusing =
      fake !== undefined
        ? new StripeBillingProvider(
            // The test server accepts any well-formed sk_test_ key: a hyphen makes this one refused (401).
            new Stripe(badKey, { host: fake.host, port: fake.port, protocol: "http", maxNetworkRetries: 0 }),
            ctx.clock,
            true,
          )
        : patchProvider(ctx.provider, {
            listPaymentMethods: async () => {
              throw new ProviderRefusedError("credentials_refused", { providerCode: "authentication_error" });
            },
            getPrices: async () => {
              throw new ProviderRefusedError("credentials_refused", { providerCode: "authentication_error" });
            },
          });
    const services = withProvider(ctx, refusing);
    forgetBillingProblems();
    for (let i = 0; i < 3; i += 1) {
      const error = await expectPointsError(() => buy(services, org.id, `refused-${i}`));
      expect(error.code).toBe("billing_credentials_refused");
      expect(errorResponse(error, "req_test").headers.get("Retry-After")).toBeNull();
      expect((await expectPointsError(() => getPriceTable(services))).code).toBe("billing_credentials_refused");
    }
    const lines = logged(/refused the API key/);
    expect(lines).toHaveLength(1);
    if (provider === "stripe") {
      expect(lines[0]).toMatch(
        /^billing: Stripe refused the API key \(authentication_error, request req_\w+\): check STRIPE_SECRET_KEY$/,
      );
    }
    expect(JSON.stringify(lines)).not.toContain(badKey.slice(8));
    expect(await ctx.db.select().from(topUps).where(eq(topUps.organizationId, org.id))).toEqual([]);
    forgetBillingProblems();
  });
});
