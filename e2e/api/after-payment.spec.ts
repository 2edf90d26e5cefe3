import type { AfterPaymentFixtures } from "../dashboard/after-payment.fixtures";
import { expect, test } from "../fixtures";
import { expectPaidReplay, postTopUp } from "../utils";

/*
 * docs/contract.md §2 and §10 against a production build, on both providers: a purchase's TopUp
 * says what happened after its charge, and its status stays `paid`. The `afterPayment` organisation
 * (e2e/dashboard/after-payment.fixtures.ts) has a purchase an operator refunded in part and one its
 * cardholder disputed; on Stripe the dispute reaches the server as the test server's webhooks.
 */
test.describe("a purchase's TopUp after its charge", () => {
  let after: AfterPaymentFixtures;
  const replay = (
    request: Parameters<typeof postTopUp>[0],
    purchase: AfterPaymentFixtures["refunded"] | AfterPaymentFixtures["disputed"],
  ) =>
    postTopUp(request, after.apiKey, {
      points: purchase.points,
      currency: "EUR",
      payment_source_id: purchase.paymentSourceId,
      reference: purchase.reference,
    });

  test.beforeAll(async ({ fx, request }) => {
    after = (fx as unknown as { afterPayment: AfterPaymentFixtures }).afterPayment;
    // On Stripe the test server's webhooks bring the dispute a moment after the server starts;
    // every test here reads a balance or a TopUp that includes it.
    await expect
      .poll(async () => (await (await replay(request, after.disputed)).json()).data?.top_up?.dispute?.status ?? null, {
        timeout: 20_000,
      })
      .toBe("open");
  });

  test("a partly refunded purchase says what was refunded, stays paid, and the balance is what is spendable", async ({
    request,
  }) => {
    const data = await expectPaidReplay(await replay(request, after.refunded), { source: "dashboard" });
    expect(data.top_up).toMatchObject({
      id: after.refunded.topUpId,
      status: "paid",
      refunded_points: 250,
      refunded_amount: 1950,
      dispute: null,
    });
    // 7,500 + 1,000 + 100 bought, 250 refunded, 7,500 held or removed by the dispute.
    expect(data.points_balance).toBe(850);
  });

  test("a disputed purchase says the dispute is open and where its Points stand", async ({ request, fx }) => {
    const data = await expectPaidReplay(await replay(request, after.disputed), { source: "dashboard" });
    expect(data.top_up).toMatchObject({
      id: after.disputed.topUpId,
      status: "paid",
      refunded_points: 0,
      // Stripe withdraws the disputed money when the dispute opens, so the Points follow it at once;
      // the simulated bank waits for the decision, so they are held.
      dispute: { status: "open", points: 7500, points_state: fx.stripe ? "removed" : "held", closed_at: null },
    });
    expect(data.top_up.dispute?.opened_at).toMatch(/Z$/);
  });
});
