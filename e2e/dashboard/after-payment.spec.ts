import fs from "node:fs";
import path from "node:path";
import { expect, type Page, test } from "@playwright/test";
import { readFixtures } from "../fixtures";
import {
  type AfterPaymentFixtures,
  type AfterPaymentPurchase,
  REFUND_REASON,
  REFUSED_REFUND_MESSAGE,
  REFUSED_REFUND_REASON,
} from "./after-payment.fixtures";
import { headerBalance, SCREENSHOTS, signIn } from "./buy.fixtures";

/*
 * Refunds and disputes as an admin (and a member) of the `afterPayment` organisation sees them:
 * 7,500 Points held by a dispute beside the spendable balance, each purchase's page saying what
 * happened after payment, the History filter, and the CSV with its refund and dispute columns.
 * e2e/serve.ts provisioned it on the simulated provider: a purchase on the `dispute` card (its
 * dispute delivered, so held) and one of 1,000 Points with 250 refunded by an operator.
 */

let fx: AfterPaymentFixtures;
let disputed: AfterPaymentPurchase;
let refunded: AfterPaymentFixtures["refunded"];

test.beforeAll(() => {
  const all: object = readFixtures();
  if (!("afterPayment" in all))
    throw new Error("fixtures.json has no `afterPayment` key: provisionAfterPaymentFixtures did not run.");
  fx = all.afterPayment as AfterPaymentFixtures;
  disputed = fx.disputed;
  refunded = fx.refunded;
});

function references(page: Page): Promise<string[]> {
  return page
    .getByTestId("top-up-row")
    .evaluateAll((all) => all.map((row) => row.getAttribute("data-reference") ?? ""));
}

test.describe("After payment", () => {
  test("the Overview and the header show the held Points apart from the spendable balance", async ({ page }) => {
    await signIn(page, fx.admin);
    // 7,500 + 1,000 + 100 bought; 7,500 held by the dispute; 250 refunded.
    await expect(page.getByTestId("overview-balance")).toHaveText("850");
    expect(await headerBalance(page)).toBe(850);
    await expect(page.getByTestId("held-points")).toHaveText("7,500 more Points held by a dispute");
    await expect(page.getByTestId("overview-held")).toContainText("7,500 Points held by a dispute");
    await expect(page.getByRole("link", { name: "Disputed purchases" })).toHaveAttribute(
      "href",
      "/dashboard/history?after=disputed",
    );
    // Still there after a client-side navigation, when the header asks for the figures again.
    await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "History" }).click();
    await expect(page).toHaveURL(/\/dashboard\/history$/);
    await expect(page.getByTestId("held-points")).toContainText("7,500");
    expect(await headerBalance(page)).toBe(850);
  });

  test("the disputed purchase's page says the dispute opened and its Points are held", async ({ page }) => {
    await signIn(page, fx.admin);
    await page.goto(`/dashboard/buy/${disputed.topUpId}`);
    const after = page.getByTestId("after-payment");
    await expect(page.getByRole("heading", { name: "After payment" })).toBeVisible();
    await expect(after).toContainText("The cardholder disputed this payment");
    await expect(after).toContainText("The dispute covers 7,500 Points.");
    await expect(after).toContainText("7,500 Points held");
    await expect(after).toContainText("cannot be spent until the dispute is settled");
    await expect(after).not.toContainText("Refunded");
    // Headed by what the dispute did, not by "Payment successful".
    await expect(page.getByRole("heading", { name: "Paid · 7,500 Points held by a dispute" })).toBeVisible();
    await expect(page.getByText("Payment successful")).toHaveCount(0);
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: path.join(SCREENSHOTS, "after-payment-dispute.png"), fullPage: true });
  });

  test("the refunded purchase's page shows the refund, to a member too", async ({ page }) => {
    await signIn(page, fx.member);
    await page.goto(`/dashboard/buy/${refunded.topUpId}`);
    const after = page.getByTestId("after-payment");
    // EUR 1,000 Points cost €78.00: 250 of them are round-half-up(7800 × 250 / 1000) = 1950 cents.
    expect(refunded.refundedAmount).toBe(1950);
    await expect(after).toContainText("Refunded 250 Points (€19.50)");
    await expect(after).toContainText("Made by an operator of this service.");
    await expect(after).toContainText(`Reason: ${REFUND_REASON}`);
    await expect(after).not.toContainText("dispute");
    // The operator's attempt the provider refused moved no money: not said here, nor the provider's words.
    await expect(after.getByRole("listitem")).toHaveCount(1);
    for (const hidden of [REFUSED_REFUND_MESSAGE, REFUSED_REFUND_REASON, "resource_missing", "failed", "€7.80"]) {
      await expect(after).not.toContainText(hidden);
    }
    // Headed by its state now, and no longer saying the balance is "now" what this purchase made it.
    await expect(page.getByRole("heading", { name: "Paid · 250 Points refunded" })).toBeVisible();
    await expect(page.getByTestId("purchase-outcome")).toContainText(
      "What happened since is under After payment, below.",
    );
    // Read only: nothing on the page acts on the refund.
    await expect(page.getByRole("button", { name: /refund/i })).toHaveCount(0);
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: path.join(SCREENSHOTS, "after-payment-refund.png"), fullPage: true });
    // On a phone the section fits the screen: nothing scrolls sideways.
    await page.setViewportSize({ width: 390, height: 844 });
    await expect(after).toContainText("Refunded 250 Points (€19.50)");
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.screenshot({ path: path.join(SCREENSHOTS, "after-payment-refund-phone.png"), fullPage: true });
    await page.setViewportSize({ width: 1280, height: 800 });

    // A purchase with nothing after payment has no such section.
    await page.goto(`/dashboard/buy/${fx.untouched.topUpId}`);
    await expect(page.getByRole("heading", { name: "Details" })).toBeVisible();
    await expect(page.getByRole("heading", { name: "After payment" })).toHaveCount(0);
    await expect(page.getByTestId("purchase-outcome")).toContainText("Your balance is now");
  });

  test("History says what happened to each purchase, filters to the refunded one, and exports it", async ({ page }) => {
    await signIn(page, fx.admin);
    await page.goto("/dashboard/history");
    await expect(page.locator(`[data-reference="${refunded.reference}"]`)).toContainText(
      "Refunded 250 Points (€19.50)",
    );
    await expect(page.locator(`[data-reference="${disputed.reference}"]`)).toContainText("Disputed: 7,500 Points held");
    await expect(
      page.locator(`[data-reference="${fx.untouched.reference}"]`).getByTestId("after-payment-notes"),
    ).toHaveCount(0);

    await page.getByLabel("After payment").selectOption("refunded");
    await expect(page).toHaveURL(/after=refunded/);
    await expect.poll(() => references(page)).toEqual([refunded.reference]);

    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("link", { name: "Export CSV" }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^top-ups-\d{4}-\d{2}-\d{2}-refunded\.csv$/);
    const csv = fs
      .readFileSync(await download.path(), "utf8")
      .trimEnd()
      .split("\r\n");
    const header = csv[0]?.split(",") ?? [];
    expect(header.slice(-4)).toEqual(["refunded_points", "refunded_amount", "dispute_status", "dispute_points_state"]);
    expect(csv).toHaveLength(2);
    const record = Object.fromEntries(header.map((name, index) => [name, csv[1]?.split(",")[index]]));
    expect(record).toMatchObject({
      id: refunded.topUpId,
      reference: refunded.reference,
      points: "1000",
      status: "paid",
      refunded_points: "250",
      refunded_amount: "1950",
      dispute_status: "",
      dispute_points_state: "",
    });

    await page.getByLabel("After payment").selectOption("disputed");
    await expect(page).toHaveURL(/after=disputed/);
    await expect.poll(() => references(page)).toEqual([disputed.reference]);
    const [disputes] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("link", { name: "Export CSV" }).click(),
    ]);
    const disputeLines = fs
      .readFileSync(await disputes.path(), "utf8")
      .trimEnd()
      .split("\r\n");
    expect(disputeLines).toHaveLength(2);
    expect(disputeLines[1]).toMatch(new RegExp(`^${disputed.topUpId},${disputed.reference},7500,.*,0,0,open,held$`));

    // A hand-edited filter is ignored like the others': the whole history, never an error page.
    const response = await page.goto("/dashboard/history?after=everything");
    expect(response?.status()).toBe(200);
    await expect.poll(async () => (await references(page)).length).toBe(3);
    const bad = await page.request.get("/dashboard/history/export?after=%3Dcmd");
    expect(bad.status()).toBe(200);
    expect((await bad.text()).trimEnd().split("\r\n")).toHaveLength(4);
  });
});
