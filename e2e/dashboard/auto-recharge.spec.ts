import path from "node:path";
import type { APIRequestContext, Page } from "@playwright/test";
import { axeViolations } from "../accessibility";
import { expect, test } from "../fixtures";
import { TOP_UPS, uniqueRef } from "../utils";
import type { AutoRechargeFixtures } from "./auto-recharge.fixtures";
import { headerBalance, SCREENSHOTS, signIn } from "./buy.fixtures";

/*
 * Low balance and auto-recharge (docs/contract.md §9) as an organisation's people see them: an
 * admin turns auto-recharge on in Settings, a spend through the API takes the balance below the
 * level, and the Overview shows the purchase auto-recharge made and the month's total against the
 * cap; the low-balance notice and the header's mark; a declined default card pauses it.
 */

const SPENDS = "/v3/points/spends";

function fixturesOf(fx: { autoRecharge?: Record<string, unknown> }): AutoRechargeFixtures {
  if (!fx.autoRecharge) throw new Error("e2e/serve.ts did not provision the auto-recharge fixtures.");
  return fx.autoRecharge as unknown as AutoRechargeFixtures;
}

async function spend(request: APIRequestContext, key: string, points: number): Promise<number> {
  const response = await request.post(SPENDS, {
    headers: { Authorization: `Bearer ${key}` },
    data: { points, reference: uniqueRef("auto-recharge-spend") },
  });
  expect(response.status()).toBe(201);
  return ((await response.json()) as { data: { points_balance: number } }).data.points_balance;
}

/** The Overview, reloaded until `testId` says `text`: the recharge runs just after the spend's answer. */
async function overviewUntil(page: Page, testId: string, text: string): Promise<void> {
  await expect
    .poll(
      async () => {
        await page.goto("/dashboard");
        return (await page.getByTestId(testId).allTextContents()).join(" ");
      },
      { timeout: 20_000, intervals: [250, 500, 1000] },
    )
    .toContain(text);
}

async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

async function fitsWidth(page: Page, width: number): Promise<void> {
  await page.setViewportSize({ width, height: 844 });
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
}

test("an admin turns auto-recharge on; a spend crosses the level and the Overview shows the purchase and the month", async ({
  page,
  request,
  fx,
}) => {
  const org = fixturesOf(fx).journey;
  await signIn(page, org.admin);
  await page.goto("/dashboard/settings");
  const section = page.locator("section", {
    has: page.getByRole("heading", { name: "Balance alerts and auto-recharge" }),
  });
  await expect(section.getByTestId("auto-recharge-sentence")).toContainText("Auto-recharge is off");

  // On, with no level and no bundle: each field says what it needs, and nothing is saved.
  const toggle = page.getByRole("switch", { name: /^Auto-recharge/ });
  await section.locator("label", { has: toggle }).click();
  await expect(toggle).toBeChecked();
  await page.getByRole("button", { name: "Save balance settings" }).click();
  await expect(page.locator("#autoRechargeBelow-error")).toHaveText("is needed to turn auto-recharge on");
  await expect(page.locator("#autoRechargePoints-error")).toHaveText("is needed to turn auto-recharge on");
  await expect(page.getByLabel("When the balance falls below (Points)")).toHaveAttribute("aria-invalid", "true");

  await page.getByLabel("When the balance falls below (Points)").fill("300");
  await page.getByLabel("Buy this bundle").selectOption("500");
  await page.getByLabel("Monthly cap (Points)").fill("1,000");
  const sentence =
    "When your balance falls below 300 Points, we buy 500 Points on your default card, at most 1,000 Points a month.";
  await expect(page.getByTestId("balance-settings-preview")).toHaveText(`Once saved: ${sentence}`);
  await page.getByRole("button", { name: "Save balance settings" }).click();
  await expect(page.getByText("Balance settings saved")).toBeVisible();
  await expect(section.getByTestId("auto-recharge-sentence")).toContainText(sentence);
  await expect(section).toContainText("Turning it off stops new purchases; it does not cancel a charge already sent.");
  await expect(section.getByTestId("auto-recharge-month")).toHaveText("0 of 1,000 Points bought this month");
  expect(await axeViolations(page)).toEqual([]);

  // 1,000 - 800 = 200, below 300: auto-recharge buys 500, after the spend's answer.
  expect(await spend(request, org.purchaseKey, 800)).toBe(200);
  // The month counts the purchase from the moment it is sent; the balance, once it is paid.
  await overviewUntil(page, "overview-balance", "700");
  await expect(page.getByTestId("overview-auto-recharge")).toContainText(
    "Auto-recharge: 500 of 1,000 Points bought this month",
  );
  const recharge = page.locator('[data-testid="top-up-row"][data-reference="auto-recharge:1"]');
  await expect(recharge).toContainText("Auto-recharge");
  await expect(recharge).toContainText("500");
  expect(await headerBalance(page)).toBe(700);
  await expect(page.getByTestId("overview-auto-recharge")).not.toContainText("cap is reached");

  // A second crossing takes the month to its cap: said plainly, on the Overview and in Settings.
  expect(await spend(request, org.purchaseKey, 500)).toBe(200);
  await overviewUntil(
    page,
    "overview-auto-recharge",
    "1,000 of 1,000 Points bought this month; the cap is reached: no more auto-recharge this month",
  );
  expect(await axeViolations(page)).toEqual([]);
  await fitsWidth(page, 390);
  await expect(page.getByTestId("overview-auto-recharge")).toBeVisible();
  await page.goto("/dashboard/settings");
  await expect(section.getByTestId("auto-recharge-month")).toContainText("the cap is reached");
  await fitsWidth(page, 390);
  await screenshot(page, "settings-auto-recharge-390");

  // History names the source, and its source filter offers it.
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto("/dashboard/history");
  await page.getByLabel("Source").selectOption("auto_recharge");
  await expect(page).toHaveURL(/source=auto_recharge/);
  await expect
    .poll(() =>
      page
        .getByTestId("top-up-row")
        .evaluateAll((rows) => rows.map((row) => row.getAttribute("data-reference") ?? "").sort()),
    )
    .toEqual(["auto-recharge:1", "auto-recharge:2"]);
  await expect(page.getByTestId("top-up-row").first()).toContainText("Auto-recharge");
});

test("below the low-balance alert, the Overview and the header say so until the balance is back", async ({
  page,
  request,
  fx,
}) => {
  const org = fixturesOf(fx).low;
  expect(await spend(request, org.purchaseKey, 700)).toBe(300);
  await signIn(page, org.admin);
  const notice = page.getByTestId("low-balance-notice");
  await expect(notice).toContainText("Your balance is low: 300 Points, below your alert at 500.");
  const mark = page.getByTestId("low-balance-indicator");
  // In words, not colour alone: "Low", and the threshold for screen readers.
  await expect(mark).toHaveText(/Low balance: below your alert at 500 Points/);
  await expect(page.getByTestId("overview-auto-recharge")).toHaveCount(0);
  expect(await axeViolations(page)).toEqual([]);
  await fitsWidth(page, 390);
  await expect(mark).toBeVisible();
  await screenshot(page, "overview-low-balance-390");

  // The header's mark follows the balance on every page, not only the Overview.
  await page.goto("/dashboard/history");
  await expect(mark).toBeVisible();

  const bought = await request.post(TOP_UPS, {
    headers: { Authorization: `Bearer ${org.purchaseKey}` },
    data: { points: 250, reference: uniqueRef("back-above") },
  });
  expect(bought.status()).toBe(201);
  await page.goto("/dashboard");
  expect(await headerBalance(page)).toBe(550);
  await expect(notice).toHaveCount(0);
  await expect(mark).toHaveCount(0);
});

test("a declined default card pauses auto-recharge: the Overview says why and what to do; saving resumes it", async ({
  page,
  browser,
  request,
  fx,
}) => {
  const org = fixturesOf(fx).declined;
  // 1,000 - 600 = 400, below 500: auto-recharge charges the declined default card.
  expect(await spend(request, org.purchaseKey, 600)).toBe(400);
  await signIn(page, org.admin);
  await overviewUntil(page, "auto-recharge-paused-notice", "your default card was declined");
  const notice = page.getByTestId("auto-recharge-paused-notice");
  await expect(notice).toContainText("Check the default card in Payment details");
  await expect(notice.getByRole("link", { name: "Payment details" })).toHaveAttribute(
    "href",
    "/dashboard/payment-details",
  );
  await expect(notice.getByRole("link", { name: "Settings" })).toHaveAttribute("href", "/dashboard/settings");
  await expect(page.getByTestId("overview-auto-recharge")).toHaveText(
    "Auto-recharge (paused): 0 Points bought this month",
  );
  expect(await axeViolations(page)).toEqual([]);
  await fitsWidth(page, 390);
  await expect(notice).toBeVisible();
  await screenshot(page, "overview-auto-recharge-paused-390");
  await page.setViewportSize({ width: 1280, height: 900 });

  // A member sees why, read-only: the form is there, disabled.
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const member = await context.newPage();
  await signIn(member, org.member);
  await expect(member.getByTestId("auto-recharge-paused-notice")).toContainText(
    "then an admin saves the auto-recharge setting again in Settings",
  );
  await member.goto("/dashboard/settings");
  await expect(member.getByRole("status").filter({ hasText: "View only" })).toBeVisible();
  await expect(member.getByText("Auto-recharge is paused").first()).toBeVisible();
  await expect(member.getByRole("switch", { name: /^Auto-recharge/ })).toBeDisabled();
  await expect(member.getByRole("button", { name: /Save and resume auto-recharge/ })).toBeDisabled();
  await expect(member.getByText("Only an admin can change balance alerts and auto-recharge.")).toBeVisible();
  await screenshot(member, "settings-auto-recharge-paused-member");
  await context.close();

  // The admin saves the setting again, unchanged: that resumes it.
  await notice.getByRole("link", { name: "Settings" }).click();
  await expect(page).toHaveURL(/\/dashboard\/settings$/);
  await expect(page.getByTestId("balance-settings-status")).toContainText("saving resumes it");
  await page.getByRole("button", { name: "Save and resume auto-recharge" }).click();
  await expect(page.getByText("Balance settings saved")).toBeVisible();
  await expect(page.getByTestId("balance-settings-status")).not.toContainText("Auto-recharge is paused");
  await page.goto("/dashboard");
  await expect(page.getByTestId("auto-recharge-paused-notice")).toHaveCount(0);
  await expect(page.getByTestId("overview-auto-recharge")).toHaveText("Auto-recharge: 0 Points bought this month");
});
