import { describe, expect, it } from "vitest";
import { ProviderRefusedError, ProviderUnavailableError } from "@/lib/billing/provider";
import { randomString } from "@/lib/ids";
import {
  backends,
  backendsAndProviders,
  createTestContext,
  type ProviderTestContext,
  patchProvider,
  withProvider,
} from "@/lib/testing/harness";
import { ledgerState, serviceSuite } from "@/lib/testing/invariants";
import { createOrganization, getOrganization } from "../accounts/organizations";
import { purchasePoints } from "../purchase";
import { getTopUp } from "../purchase/top-ups";
import { listTopUps, paymentMethodLabels, purchaseCardLabel } from "../views/history";
import { listUsablePaymentMethods } from "./payment-methods";
import { removeCard } from "./remove-card";
import { saveSettings } from "./settings";
import { testCardBehaviour } from "./test-cards";

/*
 * Removing a saved card, on either provider, however it was saved: the organisation's own cards
 * only, the default left unset, and the purchases made with it untouched, their card's label kept.
 */
describe.each(backendsAndProviders())("removing a saved card (%s, %s provider)", (backend, provider) => {
  let ctx: ProviderTestContext;
  const track = serviceSuite(backend, provider, (made) => {
    ctx = made;
  });

  async function organisation(cards: string[], defaultCardIndex?: number) {
    const created = await createOrganization(ctx, {
      name: `Removal ${randomString(4)}`,
      settings: { currency: "USD", apiPurchasesEnabled: true },
      cards,
      defaultCardIndex,
    });
    track(created.organization.id);
    const buy = async (reference: string, paymentSourceId?: string) => {
      const organization = await getOrganization(ctx.db, created.organization.id);
      if (!organization) throw new Error("organisation vanished");
      return purchasePoints(ctx, {
        organization,
        request: { points: 100, reference, paymentSourceId },
        source: "dashboard",
      });
    };
    const usable = () => listUsablePaymentMethods(ctx, created.organization);
    return { ...created, buy, usable, ids: created.paymentMethods.map((method) => method.id) };
  }

  it("removes the default card: never offered again, and no default until an admin chooses one", async () => {
    const org = await organisation(["visa", "mastercard"], 0);
    const [visa = "", mastercard = ""] = org.ids;
    expect(await removeCard(ctx, org.organization.id, visa)).toEqual({ label: "Visa •••• 4242", wasDefault: true });
    expect((await org.usable()).map((method) => [method.id, method.isDefault])).toEqual([[mastercard, false]]);
    await expect(org.buy("no-default", visa)).rejects.toMatchObject({ code: "invalid_payment_method" });

    // The admin chooses the card left as the default, in Settings.
    await saveSettings(ctx, org.organization.id, {
      apiPurchasesEnabled: true,
      currency: "USD",
      defaultPaymentMethodId: mastercard,
    });
    expect((await org.usable()).map((method) => [method.id, method.isDefault])).toEqual([[mastercard, true]]);
    expect(await removeCard(ctx, org.organization.id, mastercard)).toEqual({
      label: "Mastercard •••• 4444",
      wasDefault: true,
    });
    expect(await org.usable()).toEqual([]);
  });

  it("removes a card that is not the default, and leaves the default as it was", async () => {
    const org = await organisation(["visa", "mastercard"], 0);
    const [visa = "", mastercard = ""] = org.ids;
    expect(await removeCard(ctx, org.organization.id, mastercard)).toEqual({
      label: "Mastercard •••• 4444",
      wasDefault: false,
    });
    expect((await org.usable()).map((method) => [method.id, method.isDefault])).toEqual([[visa, true]]);
  });

  it("answers another organisation's card, an unknown ID and a removed card alike, and removes nothing", async () => {
    const mine = await organisation(["visa"], 0);
    const theirs = await organisation(["visa", "mastercard"], 0);
    const before = await theirs.usable();
    expect(await removeCard(ctx, mine.organization.id, mine.ids[0] ?? "")).toMatchObject({ wasDefault: true });
    const answers = [];
    for (const id of [theirs.ids[1] ?? "", "pm_nope", "", "../v1/customers", mine.ids[0] ?? ""]) {
      answers.push(await removeCard(ctx, mine.organization.id, id).catch((error: unknown) => error));
    }
    const messages = new Set(answers.map((answer) => (answer as { message?: string }).message));
    expect(answers.every((answer) => (answer as { code?: string }).code === "not_found")).toBe(true);
    expect(messages.size).toBe(1);
    expect(await theirs.usable()).toEqual(before);
  });

  it("keeps purchases made with a removed card: the pending one settles, and each keeps the card's label", async () => {
    const org = await organisation(["visa", "processing"], 0);
    const [visa = "", processing = ""] = org.ids;
    expect((await org.buy("paid-with-visa", visa)).outcome).toBe("paid_now");
    ctx.clock.advance(1000);
    expect((await org.buy("unresolved", processing)).outcome).toBe("unresolved");
    await removeCard(ctx, org.organization.id, visa);
    await removeCard(ctx, org.organization.id, processing);

    // The retry asks about the same payment: paid, with the card gone.
    expect((await org.buy("unresolved", processing)).outcome).toBe("paid_now");
    const { topUps } = await listTopUps(ctx.db, org.organization.id, { limit: 10 });
    const labels = await paymentMethodLabels(ctx, org.organization);
    expect(labels.has(visa) || labels.has(processing)).toBe(false);
    expect(topUps.map((topUp) => [topUp.reference, topUp.status, purchaseCardLabel(topUp, labels)])).toEqual([
      ["unresolved", "paid", "Visa •••• 1881"],
      ["paid-with-visa", "paid", "Visa •••• 4242"],
    ]);
    expect(await ledgerState(ctx.db, org.organization.id, ctx.probe)).toMatchObject({ charges: 2, credits: 2 });
  });

  it("keeps the label of a purchase whose card the provider lost on its own side", async () => {
    const org = await organisation(["visa"], 0);
    const paid = await org.buy("before-detach");
    await ctx.probe.detachCard(org.organization.billingCustomerId, org.ids[0] ?? "");
    const topUp = await getTopUp(ctx.db, org.organization.id, paid.topUp.id);
    if (!topUp) throw new Error("purchase vanished");
    expect(purchaseCardLabel(topUp, await paymentMethodLabels(ctx, org.organization))).toBe("Visa •••• 4242");
  });

  it("says so when the provider does not answer, and removes nothing", async () => {
    const org = await organisation(["visa"], 0);
    const cardId = org.ids[0] ?? "";
    const fake = ctx.stripe?.fake;
    // Stripe answers 500 to the detach; the simulated provider's call fails outright.
    fake?.control.fault({ method: "POST", path: `/v1/payment_methods/${cardId}/detach`, kind: "500_before", times: 1 });
    const failing = fake
      ? ctx
      : withProvider(
          ctx,
          patchProvider(ctx.provider, { removePaymentMethod: () => Promise.reject(new ProviderUnavailableError()) }),
        );
    await expect(removeCard(failing, org.organization.id, cardId)).rejects.toMatchObject({
      code: "payment_methods_unavailable",
      message: expect.stringMatching(/^The billing provider did not answer, so the card was not removed/),
    });
    expect((await org.usable()).map((method) => method.id)).toEqual(org.ids);
  });

  it("says the provider refused the key, not that it did not answer, when the removal is refused", async () => {
    const org = await organisation(["visa"], 0);
    const cardId = org.ids[0] ?? "";
    const refused = () =>
      Promise.reject(new ProviderRefusedError("credentials_refused", { providerCode: "authentication_error" }));
    const refusing = withProvider(ctx, patchProvider(ctx.provider, { removePaymentMethod: refused }));
    await expect(removeCard(refusing, org.organization.id, cardId)).rejects.toMatchObject({
      code: "billing_credentials_refused",
      retryAfterSeconds: undefined,
    });
    expect((await org.usable()).map((method) => method.id)).toEqual(org.ids);
  });
});

/*
 * Stripe Checkout saves a card with no word from this service (no metadata): it is the same card as
 * one the operator saved with --card, labelled, described and removed the same way.
 */
describe.each(backends())("a card saved on Stripe's Checkout page (%s)", (backend) => {
  it("carries the behaviour of the test card behind it, and is removed like any other", async () => {
    const ctx = await createTestContext(backend, { provider: "stripe" });
    try {
      const stripe = ctx.stripe?.client;
      if (!stripe) throw new Error("no Stripe test server");
      const org = await createOrganization(ctx, {
        name: "Checkout Cards",
        cards: ["authentication_required"],
        defaultCardIndex: 0,
      });
      const customer = org.organization.billingCustomerId;
      const fromCheckout = await stripe.paymentMethods.attach("pm_card_authenticationRequired", { customer });
      await stripe.customers.update(customer, { invoice_settings: { default_payment_method: fromCheckout.id } });
      (ctx.provider as { invalidatePaymentMethods?: (id: string) => void }).invalidatePaymentMethods?.(customer);

      const listed = await listUsablePaymentMethods(ctx, org.organization);
      expect(listed.map((method) => [method.label, testCardBehaviour(method.kind), method.isDefault])).toEqual([
        ["Visa •••• 3184", "Asks for authentication; paid once completed", true],
        ["Visa •••• 3184", "Asks for authentication; paid once completed", false],
      ]);
      expect(await removeCard(ctx, org.organization.id, fromCheckout.id)).toEqual({
        label: "Visa •••• 3184",
        wasDefault: true,
      });
      // Stripe clears the customer's default when its card is detached.
      const after = await stripe.customers.retrieve(customer);
      expect("deleted" in after ? null : after.invoice_settings.default_payment_method).toBeNull();
      expect(
        (await listUsablePaymentMethods(ctx, org.organization)).map((method) => [method.id, method.isDefault]),
      ).toEqual([[org.paymentMethods[0]?.id, false]]);
    } finally {
      await ctx.close();
    }
  });
});
