import fs from "node:fs";
import { expect, test } from "@playwright/test";
import { type AfterPaymentFixtures, REFUSED_REFUND_MESSAGE } from "../dashboard/after-payment.fixtures";
import { headerBalance, signIn } from "../dashboard/buy.fixtures";
import { readFixtures } from "../fixtures";

/*
 * The `afterPayment` organisation on Stripe, through the production build: its dispute came as the
 * test server's webhooks (Stripe withdraws the money when a dispute opens, so the Points are removed
 * at once), and an operator refunded 250 Points of another purchase. The header's balance route and
 * the History export route answer on this provider as on the simulated one.
 */
let fx: AfterPaymentFixtures;

test.beforeAll(() => {
  fx = (readFixtures() as unknown as { afterPayment: AfterPaymentFixtures }).afterPayment;
});

test("a Stripe dispute's Points are removed, the header shows the spendable balance, and the CSV carries refund and dispute", async ({
  page,
}) => {
  await signIn(page, fx.admin);
  await page.goto(`/dashboard/buy/${fx.disputed.topUpId}`);
  // The webhook may land a moment after the server starts: the page says it once it has.
  await expect(async () => {
    await page.reload();
    await expect(page.getByTestId("after-payment")).toContainText("7,500 Points removed", { timeout: 1_000 });
  }).toPass({ timeout: 20_000 });
  // 7,500 + 1,000 + 100 bought; 7,500 removed by the dispute; 250 refunded; nothing held.
  expect(await headerBalance(page)).toBe(850);
  await expect(page.getByText("held by a dispute")).toHaveCount(0);

  const answer = await page.request.get("/dashboard/history/export");
  expect(answer.status()).toBe(200);
  const lines = (await answer.text()).trimEnd().split("\r\n");
  const header = lines[0]?.split(",") ?? [];
  const rows = lines
    .slice(1)
    .map((line) => Object.fromEntries(header.map((name, index) => [name, line.split(",")[index]])));
  expect(rows.find((row) => row.id === fx.refunded.topUpId)).toMatchObject({
    refunded_points: "250",
    refunded_amount: "1950",
    dispute_status: "",
  });
  expect(rows.find((row) => row.id === fx.disputed.topUpId)).toMatchObject({
    refunded_points: "0",
    dispute_status: "open",
    dispute_points_state: "removed",
  });

  // The refunded purchase's page says the refund that moved money, and not the operator's refused attempt.
  await page.goto(`/dashboard/buy/${fx.refunded.topUpId}`);
  const after = page.getByTestId("after-payment");
  await expect(after).toContainText("Refunded 250 Points (€19.50)");
  await expect(after.getByRole("listitem")).toHaveCount(1);
  await expect(after).not.toContainText(REFUSED_REFUND_MESSAGE);
  await expect(after).not.toContainText("failed");
  fs.mkdirSync("e2e/.artifacts/screenshots", { recursive: true });
  await page.screenshot({ path: "e2e/.artifacts/screenshots/stripe-after-payment-dispute.png", fullPage: true });
});
