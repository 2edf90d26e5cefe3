import { expect, type Page, test } from "@playwright/test";
import type { AutoRechargeFixtures } from "../dashboard/auto-recharge.fixtures";
import { headerBalance, signIn } from "../dashboard/buy.fixtures";
import { readFixtures } from "../fixtures";
import { uniqueRef } from "../utils";

/*
 * Spends, the low-balance alert and a paused auto-recharge on Stripe, through the production
 * build: the spends route, the header's balance route and History's export answer on this provider
 * as on the simulated one, and a recharge Stripe declines pauses auto-recharge.
 */
let fx: AutoRechargeFixtures;

test.beforeAll(() => {
  fx = (readFixtures() as unknown as { autoRecharge: AutoRechargeFixtures }).autoRecharge;
});

async function spend(page: Page, key: string, points: number, description: string) {
  const response = await page.request.post("/v3/points/spends", {
    headers: { Authorization: `Bearer ${key}` },
    data: { points, reference: uniqueRef("stripe-spend"), description },
  });
  expect(response.status()).toBe(201);
  return (await response.json()) as { data: { spend: { id: string }; points_balance: number } };
}

test("a spend below the alert: the header marks it, its balance route says so, and the export lists the spend", async ({
  page,
}) => {
  const org = fx.low;
  await signIn(page, org.admin);
  const spent = await spend(page, org.purchaseKey, 700, "Stripe report");
  expect(spent.data.points_balance).toBe(300);

  const balance = await page.request.get("/dashboard/balance");
  expect(balance.status()).toBe(200);
  expect(await balance.json()).toMatchObject({ points_balance: 300, low_balance_threshold: 500 });

  await page.goto("/dashboard");
  await expect(page.getByTestId("low-balance-notice")).toContainText(
    "Your balance is low: 300 Points, below your alert at 500.",
  );
  await expect(page.getByTestId("low-balance-indicator")).toBeVisible();
  expect(await headerBalance(page)).toBe(300);

  const answer = await page.request.get("/dashboard/history/export");
  expect(answer.status()).toBe(200);
  const lines = (await answer.text()).trimEnd().split("\r\n");
  const header = lines[0]?.split(",") ?? [];
  const row = lines
    .slice(1)
    .map((line) => Object.fromEntries(header.map((name, index) => [name, line.split(",")[index]])))
    .find((entry) => entry.id === spent.data.spend.id);
  expect(row).toMatchObject({ kind: "spend", points: "-700", description: "Stripe report" });

  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 844 });
    await page.goto("/dashboard");
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
  }
});

test("a recharge Stripe declines pauses auto-recharge, and the Overview says what to do", async ({ page }) => {
  const org = fx.declined;
  await signIn(page, org.admin);
  await spend(page, org.purchaseKey, 600, "Crosses the level");
  // The recharge runs just after the spend's answer: reload until its outcome shows.
  await expect(async () => {
    await page.goto("/dashboard");
    await expect(page.getByTestId("auto-recharge-paused-notice")).toContainText(
      "Check the default card in Payment details",
      { timeout: 1_000 },
    );
  }).toPass({ timeout: 20_000 });
  expect(await headerBalance(page)).toBe(400);
});
