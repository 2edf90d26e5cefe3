import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backends, createTestContext, expectPointsError, type TestContext } from "@/lib/testing/harness";
import { authenticateApiRequest } from "../accounts/api-keys";
import { createOrganization, getOrganization, type OrganizationSettings } from "../accounts/organizations";
import { PointsError } from "../errors";
import { purchasePoints } from "../purchase";
import { listUsablePaymentMethods, resolvePaymentMethod } from "./payment-methods";
import { getSettings, saveSettings } from "./settings";

describe.each(backends())("saving Settings on %s", (backend) => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext(backend);
  });
  afterAll(async () => {
    await ctx?.close();
  });

  const newOrg = (settings: OrganizationSettings = {}, cards: string[] = ["visa", "mastercard"]) =>
    createOrganization(ctx, { name: "Settings Ltd", settings, cards });

  const refusal = expectPointsError;

  async function organization(id: string) {
    const found = await getOrganization(ctx.db, id);
    if (!found) throw new Error(`No organisation ${id}`);
    return found;
  }

  it("the API refuses purchases until an admin enables them and saves, and again once they are disabled", async () => {
    const created = await newOrg();
    const header = `Bearer ${created.apiKey.apiKey}`;
    const before = await refusal(() => authenticateApiRequest(ctx.db, header, ctx.clock));
    expect(before.code).toBe("api_purchases_disabled");

    await saveSettings(ctx, created.organization.id, { apiPurchasesEnabled: true, currency: null });
    expect((await authenticateApiRequest(ctx.db, header, ctx.clock)).id).toBe(created.organization.id);

    await saveSettings(ctx, created.organization.id, { apiPurchasesEnabled: false, currency: null });
    expect((await refusal(() => authenticateApiRequest(ctx.db, header, ctx.clock))).code).toBe(
      "api_purchases_disabled",
    );
  });

  it("says what a save changed: only the default card, only the currency, the switch, or nothing", async () => {
    const created = await newOrg({ apiPurchasesEnabled: true });
    const [visa, mastercard] = created.paymentMethods;
    if (!visa || !mastercard) throw new Error("Two cards were expected.");
    const id = created.organization.id;
    const save = (input: Parameters<typeof saveSettings>[2]) => saveSettings(ctx, id, input);
    expect(
      (await save({ apiPurchasesEnabled: true, currency: null, defaultPaymentMethodId: mastercard.id })).changed,
    ).toEqual(["defaultPaymentMethod"]);
    expect(
      (await save({ apiPurchasesEnabled: true, currency: null, defaultPaymentMethodId: mastercard.id })).changed,
    ).toEqual([]);
    expect((await save({ apiPurchasesEnabled: true, currency: "EUR" })).changed).toEqual(["currency"]);
    expect((await save({ apiPurchasesEnabled: false, currency: "EUR" })).changed).toEqual(["apiPurchasesEnabled"]);
  });

  it("a saved default currency and payment method are what a purchase without them uses", async () => {
    const created = await newOrg({ apiPurchasesEnabled: true });
    const [visa, mastercard] = created.paymentMethods;
    if (!visa || !mastercard) throw new Error("Two cards were expected.");
    // With two cards and no default, the API cannot choose one.
    const methods = await listUsablePaymentMethods(ctx, created.organization);
    expect(() => resolvePaymentMethod(methods, undefined)).toThrow(PointsError);

    await saveSettings(ctx, created.organization.id, {
      apiPurchasesEnabled: true,
      currency: "GBP",
      defaultPaymentMethodId: mastercard.id,
    });

    const result = await purchasePoints(ctx, {
      organization: await organization(created.organization.id),
      request: { points: 100, reference: "defaults-1" },
      source: "api",
    });
    expect(result.outcome).toBe("paid_now");
    expect(result.topUp.currency).toBe("GBP");
    expect(result.topUp.paymentSourceId).toBe(mastercard.id);

    const view = await getSettings(ctx, created.organization.id);
    expect(view).toMatchObject({ apiPurchasesEnabled: true, currency: "GBP", defaultPaymentMethodId: mastercard.id });
    expect(view.paymentMethods?.[0]?.id).toBe(mastercard.id);
  });

  it("another organisation's payment method cannot become the default, and nothing is saved", async () => {
    const mine = await newOrg();
    const theirs = await newOrg();
    const foreign = theirs.paymentMethods[0];
    if (!foreign) throw new Error("A card was expected.");

    const error = await refusal(() =>
      saveSettings(ctx, mine.organization.id, {
        apiPurchasesEnabled: true,
        currency: "EUR",
        defaultPaymentMethodId: foreign.id,
      }),
    );
    expect(error.code).toBe("invalid_request");
    expect(error.details.fields).toHaveProperty("defaultPaymentMethodId");

    // The whole save was refused: the switch and currency are as they were, and no default was set anywhere.
    const after = await getSettings(ctx, mine.organization.id);
    expect(after).toMatchObject({ apiPurchasesEnabled: false, currency: null, defaultPaymentMethodId: null });
    expect((await getSettings(ctx, theirs.organization.id)).defaultPaymentMethodId).toBeNull();
  });

  it("an expired card cannot become the default", async () => {
    const created = await newOrg({}, ["visa", "expired"]);
    const expired = created.paymentMethods.find((method) => method.kind === "expired");
    if (!expired) throw new Error("An expired card was expected.");
    const error = await refusal(() =>
      saveSettings(ctx, created.organization.id, {
        apiPurchasesEnabled: true,
        currency: null,
        defaultPaymentMethodId: expired.id,
      }),
    );
    expect(error.details.fields).toHaveProperty("defaultPaymentMethodId");
  });

  it("clearing the default leaves the API without one; leaving it out keeps it", async () => {
    const created = await newOrg({ apiPurchasesEnabled: true });
    const [visa] = created.paymentMethods;
    if (!visa) throw new Error("A card was expected.");
    const id = created.organization.id;

    await saveSettings(ctx, id, { apiPurchasesEnabled: true, currency: "USD", defaultPaymentMethodId: visa.id });
    await saveSettings(ctx, id, { apiPurchasesEnabled: true, currency: "EUR" });
    expect(await getSettings(ctx, id)).toMatchObject({ currency: "EUR", defaultPaymentMethodId: visa.id });

    await saveSettings(ctx, id, { apiPurchasesEnabled: true, currency: "EUR", defaultPaymentMethodId: null });
    expect((await getSettings(ctx, id)).defaultPaymentMethodId).toBeNull();
  });

  it("a currency other than USD, GBP or EUR is refused", async () => {
    const created = await newOrg();
    const error = await refusal(() =>
      // A form value that slipped past the action's validation must still not reach the database.
      saveSettings(ctx, created.organization.id, { apiPurchasesEnabled: true, currency: "JPY" as "USD" }),
    );
    expect(error.details.fields).toHaveProperty("currency");
    expect((await getSettings(ctx, created.organization.id)).apiPurchasesEnabled).toBe(false);
  });

  it("the settings page still loads while the provider cannot list payment methods", async () => {
    const created = await createOrganization(ctx, {
      name: "Outage plc",
      settings: { apiPurchasesEnabled: true, currency: "USD" },
      cards: ["visa"],
      defaultCardIndex: 0,
      simulateOutage: true,
    });
    const view = await getSettings(ctx, created.organization.id);
    expect(view.paymentMethods).toBeNull();
    // Saving without touching the default works during the outage.
    await saveSettings(ctx, created.organization.id, { apiPurchasesEnabled: false, currency: "USD" });
    expect((await getSettings(ctx, created.organization.id)).apiPurchasesEnabled).toBe(false);
  });
});
