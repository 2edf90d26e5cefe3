import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backends, createTestContext, patchProvider, type TestContext, withProvider } from "@/lib/testing/harness";
import { createOrganization } from "../accounts/organizations";
import { toPaymentMethodJson } from "../api/json";
import { PointsError } from "../errors";
import { expiresSoon, getPaymentDetails } from "./payment-details";
import { listUsablePaymentMethods } from "./payment-methods";
import { removeCard } from "./remove-card";
import { addTestCard } from "./test-cards";

describe.each(backends())("Payment details on %s", (backend) => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext(backend);
  });
  afterAll(async () => {
    await ctx?.close();
  });

  it("lists exactly what GET /v3/points/payment-methods lists, and names the expired cards apart", async () => {
    const created = await createOrganization(ctx, {
      name: "Details Co",
      settings: { apiPurchasesEnabled: true, currency: "EUR" },
      cards: ["visa", "expired", "mastercard"],
      defaultCardIndex: 2,
    });
    const details = await getPaymentDetails(ctx, created.organization.id);
    if (details.status !== "ok") throw new Error("The methods should be listed.");
    const api = (await listUsablePaymentMethods(ctx, created.organization)).map(toPaymentMethodJson);
    expect(details.methods.map(toPaymentMethodJson)).toEqual(api);
    expect(details.methods[0]?.isDefault).toBe(true);
    expect(details.unusable).toEqual([{ id: created.paymentMethods[1]?.id, label: "Visa •••• 0069" }]);
    expect(details).toMatchObject({ apiPurchasesEnabled: true, currency: "EUR", providerName: "simulated" });
    // The Add-card form offers only the test cards not saved yet, expired ones included.
    expect([...details.savedKinds].sort()).toEqual(["expired", "mastercard", "visa"]);
  });

  it("says the provider is unavailable instead of failing the page", async () => {
    const created = await createOrganization(ctx, { name: "Outage Co", cards: ["visa"], simulateOutage: true });
    const details = await getPaymentDetails(ctx, created.organization.id);
    expect(details.status).toBe("unavailable");
  });

  it("an admin's test card is saved for their organisation only, and the API lists it", async () => {
    const mine = await createOrganization(ctx, { name: "Cards One", settings: { apiPurchasesEnabled: true } });
    const theirs = await createOrganization(ctx, { name: "Cards Two", settings: { apiPurchasesEnabled: true } });
    const added = await addTestCard(ctx, mine.organization.id, "mastercard");
    expect(added.label).toBe("Mastercard •••• 4444");
    expect(added.usable).toBe(true);
    expect(await addTestCard(ctx, mine.organization.id, "expired")).toMatchObject({
      label: "Visa •••• 0069",
      usable: false,
    });
    expect((await listUsablePaymentMethods(ctx, mine.organization)).map((method) => method.id)).toEqual([added.id]);
    expect(await listUsablePaymentMethods(ctx, theirs.organization)).toEqual([]);
  });

  it("saves each test card once: the same kind again is refused, naming the one already saved", async () => {
    const created = await createOrganization(ctx, { name: "Cards Twice", cards: ["declined"] });
    const again = await addTestCard(ctx, created.organization.id, "declined").catch((error: unknown) => error);
    if (!(again instanceof PointsError)) throw new Error("A second declined card was saved.");
    expect(again.message).toMatch(/Visa •••• 0002 .* is already saved/);
    expect(again.details.fields).toHaveProperty("kind");
    expect(await listUsablePaymentMethods(ctx, created.organization)).toHaveLength(1);
  });

  it("removes a test card: never listed again, no longer the default, and another organisation's is not found", async () => {
    const mine = await createOrganization(ctx, {
      name: "Cards Removed",
      cards: ["visa", "mastercard"],
      defaultCardIndex: 0,
    });
    const theirs = await createOrganization(ctx, { name: "Cards Kept", cards: ["visa"], defaultCardIndex: 0 });
    const [visa, mastercard] = mine.paymentMethods;
    expect(await removeCard(ctx, mine.organization.id, visa?.id ?? "")).toEqual({
      label: "Visa •••• 4242",
      wasDefault: true,
    });
    const left = await listUsablePaymentMethods(ctx, mine.organization);
    expect(left.map((method) => [method.id, method.isDefault])).toEqual([[mastercard?.id, false]]);
    const foreign = await removeCard(ctx, mine.organization.id, theirs.paymentMethods[0]?.id ?? "").catch(
      (error: unknown) => error,
    );
    expect(foreign).toMatchObject({ code: "not_found" });
    expect(await listUsablePaymentMethods(ctx, theirs.organization)).toHaveLength(1);
    // Removed, the kind can be saved again.
    expect((await addTestCard(ctx, mine.organization.id, "visa")).label).toBe("Visa •••• 4242");
  });

  it("refuses an unknown test card, and test cards altogether with another provider", async () => {
    const created = await createOrganization(ctx, { name: "Cards Three" });
    const unknown = await addTestCard(ctx, created.organization.id, "amex").catch((error: unknown) => error);
    if (!(unknown instanceof PointsError)) throw new Error("An unknown test card was accepted.");
    expect(unknown.details.fields).toHaveProperty("kind");

    // Like Stripe: test cards to provision, but an admin adds cards on the provider's own page.
    const stripe = withProvider(
      ctx,
      patchProvider(ctx.provider, {
        name: "stripe",
        testMode: { cardKinds: () => ["visa"] },
        startCardSetup: async () => ({ url: "https://checkout.example/setup" }),
      }),
    );
    const refused = await addTestCard(stripe, created.organization.id, "visa").catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(PointsError);
    expect(await listUsablePaymentMethods(ctx, created.organization)).toEqual([]);
  });
});

describe("Payment details helpers", () => {
  const now = new Date("2026-11-22T12:00:00Z");

  it("flags a card whose last usable day is within two months, and not one further off or already expired", () => {
    expect(expiresSoon({ expMonth: 11, expYear: 2026 }, now)).toBe(true);
    expect(expiresSoon({ expMonth: 12, expYear: 2026 }, now)).toBe(true);
    // Usable through 31 January 2027, which is more than two months after 22 November.
    expect(expiresSoon({ expMonth: 1, expYear: 2027 }, now)).toBe(false);
    expect(expiresSoon({ expMonth: 12, expYear: 2030 }, now)).toBe(false);
    expect(expiresSoon({ expMonth: 10, expYear: 2026 }, now)).toBe(false);
  });
});
