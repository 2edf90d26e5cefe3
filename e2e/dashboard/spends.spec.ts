import fs from "node:fs";
import path from "node:path";
import type { APIRequestContext, Page } from "@playwright/test";
import { axeViolations } from "../accessibility";
import { expect, test } from "../fixtures";
import { TOP_UPS, uniqueRef } from "../utils";
import { SCREENSHOTS, signIn } from "./buy.fixtures";
import type { DashboardSpendsFixtures } from "./spends.fixtures";

/*
 * Spending, as an organisation's admin sees it: a spend key made on the API keys page spends but
 * never buys, and every spend shows in History as "Spent" beside the top-ups, and in its CSV.
 */

const SPENDS = "/v3/points/spends";

function spendsOf(fx: { dashboardSpends?: Record<string, unknown> }): DashboardSpendsFixtures {
  if (!fx.dashboardSpends) throw new Error("e2e/serve.ts did not provision the dashboard's spends fixtures.");
  return fx.dashboardSpends as unknown as DashboardSpendsFixtures;
}

/** A spend through the REST API. */
async function spend(request: APIRequestContext, key: string, data: Record<string, unknown>) {
  return request.post(SPENDS, { headers: { Authorization: `Bearer ${key}` }, data });
}

async function listed(page: Page, testId: string): Promise<string[]> {
  return page.getByTestId(testId).evaluateAll((all) => all.map((row) => row.getAttribute("data-reference") ?? ""));
}

test("an admin creates a spend key: the list shows its scope, it spends but never buys, and takes no cap", async ({
  page,
  request,
  fx,
}) => {
  const org = spendsOf(fx);
  await signIn(page, org.admin);
  await page.goto("/dashboard/api-keys");
  await expect(page.getByText("spend: read and spend, never buy")).toBeVisible();

  // A spend key cannot buy, so it takes no daily cap: the field says so, and no key is made.
  const rows = await page.getByTestId("api-key-row").count();
  await page.getByLabel("Name", { exact: true }).fill("Metering service");
  await page.getByLabel("Scope").selectOption("spend");
  await page.getByLabel("Daily Points cap (optional)").fill("1000");
  await page.getByRole("button", { name: "Create API key" }).click();
  await expect(page.getByText("must be empty for a spend key")).toBeVisible();
  await expect(page.getByTestId("api-key-row")).toHaveCount(rows);

  await page.getByLabel("Daily Points cap (optional)").fill("");
  await page.getByRole("button", { name: "Create API key" }).click();
  await expect(page.getByText("Your new spend API key")).toBeVisible();
  const spendKey = (await page.getByTestId("new-api-key-value").textContent()) ?? "";
  expect(spendKey).toMatch(/^pts_[A-Za-z0-9]{40}$/);
  const row = page.locator(`[data-testid="api-key-row"][data-prefix="${spendKey.slice(0, 12)}"]`);
  await expect(row).toHaveAttribute("data-scope", "spend");
  await expect(row).toContainText("Spend");
  await expect(row).toContainText("Daily cap None");
  expect(await axeViolations(page)).toEqual([]);

  const reference = uniqueRef("spend-key");
  const spent = await spend(request, spendKey, { points: 40, reference, description: "Spent by a spend key" });
  expect(spent.status()).toBe(201);
  const refused = await request.post(TOP_UPS, {
    headers: { Authorization: `Bearer ${spendKey}` },
    data: { points: 100, reference: uniqueRef("spend-key-buy") },
  });
  expect(refused.status()).toBe(403);
  expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("insufficient_scope");

  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto("/dashboard/api-keys");
  await expect(row).toContainText("Spend");
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
});

test("a spend shows in History as Spent beside the top-ups, in the kind filter and in the CSV", async ({
  page,
  request,
  fx,
}) => {
  const org = spendsOf(fx);
  const reference = uniqueRef("history-spend");
  const made = await spend(request, org.purchaseKey, { points: 120, reference, description: "Report generation" });
  expect(made.status()).toBe(201);
  const spendId = ((await made.json()) as { data: { spend: { id: string } } }).data.spend.id;

  await signIn(page, org.admin);
  await page.goto("/dashboard/history");
  const row = page.locator(`[data-testid="spend-row"][data-reference="${reference}"]`);
  await expect(row).toContainText("Spent");
  await expect(row).toContainText("\u2212120");
  await expect(row).toContainText("Report generation");
  await expect(row).toContainText("API");
  // No money moved: the amount and card cells are empty, and there is no purchase page to open.
  await expect(row.locator("td:nth-child(4)")).toHaveText("");
  await expect(row.getByRole("link")).toHaveCount(0);
  expect(await listed(page, "top-up-row")).toContain(org.topUpReference);
  // Newest first across kinds: the spend just made comes before the fixture's purchase.
  const order = await page
    .locator('[data-testid="spend-row"], [data-testid="top-up-row"]')
    .evaluateAll((all) => all.map((one) => one.getAttribute("data-reference")));
  expect(order.indexOf(reference)).toBeLessThan(order.indexOf(org.topUpReference));
  expect(await axeViolations(page)).toEqual([]);

  await page.getByLabel("Kind").selectOption("spend");
  await expect(page).toHaveURL(/kind=spend/);
  await expect.poll(() => listed(page, "top-up-row")).toEqual([]);
  expect(await listed(page, "spend-row")).toContain(reference);
  await expect(page.getByLabel("Status")).toBeDisabled();

  await page.getByLabel("Kind").selectOption("");
  await expect(page).not.toHaveURL(/kind=spend/);
  await page.getByLabel("Status").selectOption("paid");
  await expect(page).toHaveURL(/status=paid/);
  await expect(page.getByTestId("spends-hidden")).toBeVisible();
  await expect.poll(() => listed(page, "spend-row")).toEqual([]);
  expect(await listed(page, "top-up-row")).toContain(org.topUpReference);

  await page.getByRole("link", { name: "Clear" }).click();
  await expect(page).toHaveURL(/\/dashboard\/history$/);
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("link", { name: "Export CSV" }).click(),
  ]);
  expect(download.suggestedFilename()).toMatch(/^history-\d{4}-\d{2}-\d{2}\.csv$/);
  const csv = fs
    .readFileSync(await download.path(), "utf8")
    .trimEnd()
    .split("\r\n");
  const header = csv[0]?.split(",") ?? [];
  expect(header.slice(0, 3)).toEqual(["id", "reference", "points"]);
  expect(header.slice(-2)).toEqual(["kind", "description"]);
  const records = csv.slice(1).map((line) => Object.fromEntries(header.map((name, i) => [name, line.split(",")[i]])));
  expect(records.find((record) => record.id === spendId)).toMatchObject({
    reference,
    points: "-120",
    amount: "",
    source: "api",
    kind: "spend",
    description: "Report generation",
  });
  expect(records.find((record) => record.reference === org.topUpReference)).toMatchObject({
    points: "1000",
    status: "paid",
    kind: "top_up",
  });

  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto("/dashboard/history");
  const card = page.locator(`[data-testid="spend-row"][data-reference="${reference}"]`);
  await expect(card).toBeVisible();
  await expect(card).toContainText("\u2212120 Points");
  await expect(card).toContainText("Spent");
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await page.screenshot({ path: path.join(SCREENSHOTS, "history-spends-390.png"), fullPage: true });
});
