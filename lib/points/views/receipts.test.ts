import { describe, expect, it } from "vitest";
import { randomString } from "@/lib/ids";
import { deliverEvents } from "@/lib/testing/after-payment";
import { backendsAndProviders, type ProviderTestContext } from "@/lib/testing/harness";
import { serviceSuite } from "@/lib/testing/invariants";
import { createOrganization } from "../accounts/organizations";
import { refundTopUp } from "../after-payment/refunds";
import { receiptUrlOf, toTopUpJson } from "../api/json";
import { purchasePoints } from "../purchase";
import { getReceipt } from "./receipts";

describe.each(backendsAndProviders())("Receipts (%s, %s provider)", (backend, provider) => {
  let ctx: ProviderTestContext;
  const track = serviceSuite(backend, provider, (made) => {
    ctx = made;
  });

  async function setup(cards = ["visa", "declined"]) {
    const name = `Receipts ${randomString(4)}`;
    const { organization, paymentMethods } = await createOrganization(ctx, {
      name,
      settings: { currency: "EUR", apiPurchasesEnabled: true },
      cards,
      defaultCardIndex: 0,
    });
    track(organization.id);
    const buy = (reference: string, card = 0) =>
      purchasePoints(ctx, {
        organization,
        request: { points: 1000, reference, paymentSourceId: paymentMethods[card]?.id },
        source: "api",
      });
    return { organization, name, buy };
  }

  it("gives a paid purchase a receipt with what an accountant files, and its refunds", async () => {
    const { organization, name, buy } = await setup();
    const paid = await buy("receipt-1");
    const receipt = await getReceipt(ctx, organization.id, paid.topUp.id);
    expect(receipt).toMatchObject({
      organizationName: name,
      topUp: { id: paid.topUp.id, points: 1000, currency: "EUR", status: "paid", paymentMethodLabel: "Visa •••• 4242" },
      refunds: [],
    });
    expect(receipt?.topUp.providerPaymentId).toBe(paid.topUp.providerPaymentId);
    // Stripe keeps a receipt of each charge; the simulated provider has none.
    if (provider === "stripe") expect(receipt?.providerReceiptUrl).toMatch(/\/receipts\/ch_/);
    else expect(receipt?.providerReceiptUrl).toBeNull();

    await refundTopUp(ctx, { topUpId: paid.topUp.id, points: 250 });
    await deliverEvents(ctx);
    const refunded = await getReceipt(ctx, organization.id, paid.topUp.id);
    expect(refunded?.refunds.map((refund) => [refund.points, refund.currency])).toEqual([[250, "EUR"]]);
    expect(toTopUpJson(paid.topUp).receipt_url).toBe(`/dashboard/receipts/${paid.topUp.id}`);
  });

  it("has no receipt for a purchase that is not paid, or is another organisation's", async () => {
    const { organization, buy } = await setup();
    const declined = await buy("receipt-declined", 1);
    expect(await getReceipt(ctx, organization.id, declined.topUp.id)).toBeNull();
    expect(receiptUrlOf(declined.topUp)).toBeNull();
    const other = await setup();
    const paid = await other.buy("receipt-other");
    expect(await getReceipt(ctx, organization.id, paid.topUp.id)).toBeNull();
  });
});
