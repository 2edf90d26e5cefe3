import fs from "node:fs";
import path from "node:path";
import { type APIRequestContext, expect, type Page, test } from "@playwright/test";
import { type BuyFixtureOrganization, headerBalance, readBuyFixtures, SCREENSHOTS, signIn } from "./buy.fixtures";

/*
 * The history and the overview, as the `ledger` organisation's admin: API and dashboard purchases
 * side by side, the filters, pagination, the CSV export, and finishing a purchase awaiting payment.
 */

let org: BuyFixtureOrganization;
const run = Date.now().toString(36);

test.beforeAll(() => {
  org = readBuyFixtures().ledger;
});

/** A purchase through the REST API with the organisation's key, as an integration would make it. */
async function apiPurchase(request: APIRequestContext, reference: string, paymentSourceId: string, points = 100) {
  const response = await request.post("/v3/points/top-ups", {
    headers: { Authorization: `Bearer ${org.apiKey}` },
    data: { points, currency: "USD", payment_source_id: paymentSourceId, reference },
  });
  return { status: response.status(), body: (await response.json()) as { data?: { top_up?: { id: string } } } };
}

function rows(page: Page) {
  return page.getByTestId("top-up-row");
}

async function references(page: Page): Promise<string[]> {
  return rows(page).evaluateAll((all) => all.map((row) => row.getAttribute("data-reference") ?? ""));
}

test.describe("History", () => {
  test.beforeEach(async ({ page }) => {
    await signIn(page, org.admin);
  });

  test("shows API and dashboard purchases together, newest first, with their details", async ({ page, request }) => {
    const apiReference = `api-${run}-paid`;
    expect((await apiPurchase(request, apiReference, org.cards.visa)).status).toBe(201);

    await page.goto("/dashboard/buy");
    await page.locator('label[for="bundle-250"]').click();
    await page.getByRole("button", { name: "Review purchase" }).click();
    const dashboardReference = await page.locator('input[name="reference"]').inputValue();
    await page.getByRole("button", { name: /^Buy / }).click();
    await expect(page.getByTestId("purchase-outcome")).toHaveAttribute("data-status", "paid");

    await page.goto("/dashboard/history");
    const listed = await references(page);
    expect(listed.indexOf(dashboardReference)).toBeLessThan(listed.indexOf(apiReference));
    const apiRow = page.locator(`[data-reference="${apiReference}"]`);
    await expect(apiRow).toContainText("API");
    await expect(apiRow).toContainText("Paid");
    await expect(apiRow).toContainText("$10.00");
    await expect(apiRow).toContainText("Visa •••• 4242");
    const dashboardRow = page.locator(`[data-reference="${dashboardReference}"]`);
    await expect(dashboardRow).toContainText("Dashboard");
    await expect(dashboardRow).toContainText("250");
    await expect(dashboardRow).toContainText("$24.00");
  });

  test("filters by status and by source", async ({ page, request }) => {
    const declined = `api-${run}-declined`;
    expect((await apiPurchase(request, declined, org.cards.declined)).status).toBe(402);

    await page.goto("/dashboard/history");
    // Filters apply as they change: no Apply button that would do nothing new.
    await expect(page.getByLabel("Status")).toBeEnabled();
    await expect(page.getByRole("button", { name: "Apply filters" })).toHaveCount(0);
    await page.getByLabel("Status").selectOption("failed");
    await expect(page).toHaveURL(/status=failed/);
    await expect(rows(page).first()).toBeVisible();
    expect(await references(page)).toContain(declined);
    for (const badge of await rows(page).locator("td:nth-child(6)").allInnerTexts()) expect(badge).toBe("Failed");

    await page.getByLabel("Status").selectOption("");
    await expect(page).not.toHaveURL(/status=failed/);
    await page.getByLabel("Source").selectOption("dashboard");
    await expect(page).toHaveURL(/source=dashboard/);
    expect(await references(page)).not.toContain(declined);
    for (const badge of await rows(page).locator("td:nth-child(7)").allInnerTexts()) expect(badge).toBe("Dashboard");

    await page.getByRole("link", { name: "Clear" }).click();
    await expect(page).toHaveURL(/\/dashboard\/history$/);
    expect(await references(page)).toContain(declined);
  });

  test("without JavaScript, the filters apply with an Apply button", async ({ page, browser, baseURL }) => {
    const declined = `api-${run}-declined-nojs`;
    expect((await apiPurchase(page.request, declined, org.cards.declined)).status).toBe(402);
    const noScript = await browser.newContext({
      baseURL,
      javaScriptEnabled: false,
      storageState: await page.context().storageState(),
    });
    try {
      const plain = await noScript.newPage();
      await plain.goto("/dashboard/history");
      await plain.getByLabel("Status").selectOption("failed");
      await expect(plain).not.toHaveURL(/status=failed/);
      await plain.getByRole("button", { name: "Apply filters" }).click();
      await expect(plain).toHaveURL(/status=failed/);
      expect(await references(plain)).toContain(declined);
      for (const badge of await rows(plain).locator("td:nth-child(6)").allInnerTexts()) expect(badge).toBe("Failed");
    } finally {
      await noScript.close();
    }
  });

  test("pages through every top-up with Next page, newest first, never showing one twice", async ({
    page,
    request,
  }) => {
    for (let index = 0; index < 28; index++) {
      expect((await apiPurchase(request, `api-${run}-bulk-${index}`, org.cards.visa)).status).toBe(201);
    }
    await page.goto("/dashboard/history?source=api");
    await expect(rows(page)).toHaveCount(25);
    const first = await references(page);
    expect(first[0]).toBe(`api-${run}-bulk-27`);
    await page.screenshot({ path: path.join(SCREENSHOTS, "history.png"), fullPage: true });

    await page.getByRole("link", { name: "Next page" }).click();
    await expect(page).toHaveURL(/cursor=/);
    await expect(rows(page).first()).not.toHaveAttribute("data-reference", first[0] ?? "");
    await expect(page).toHaveURL(/source=api/);
    const second = await references(page);
    expect(second.length).toBeGreaterThan(0);
    expect(second.filter((reference) => first.includes(reference))).toEqual([]);
    const times = await rows(page)
      .locator("time")
      .evaluateAll((all) => all.map((time) => Date.parse(time.getAttribute("datetime") ?? "")));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    await page.getByRole("link", { name: "Newest" }).click();
    await expect(page).not.toHaveURL(/cursor=/);
    await expect(rows(page).first()).toHaveAttribute("data-reference", first[0] ?? "");
    expect(await references(page)).toEqual(first);
  });

  test("exports the filtered history as CSV", async ({ page, request }) => {
    const declined = `api-${run}-export-declined`;
    expect((await apiPurchase(request, declined, org.cards.declined)).status).toBe(402);
    await page.goto("/dashboard/history?status=failed");
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("link", { name: "Export CSV" }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^top-ups-\d{4}-\d{2}-\d{2}-failed\.csv$/);
    const csv = fs
      .readFileSync(await download.path(), "utf8")
      .trimEnd()
      .split("\r\n");
    expect(csv[0]).toBe(
      "id,reference,points,amount,currency,payment_source_id,status,source,created_at,paid_at," +
        "refunded_points,refunded_amount,dispute_status,dispute_points_state",
    );
    const records = csv.slice(1).map((line) => line.split(","));
    expect(records.some((record) => record[1] === declined)).toBe(true);
    expect(records.every((record) => record[6] === "failed")).toBe(true);

    // A date range (UTC days, both included) applies as it changes, beside the other filters, and the export keeps it.
    const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
    await page.getByLabel("From", { exact: true }).fill(day(-1));
    await expect(page).toHaveURL(new RegExp(`from=${day(-1)}`));
    await page.getByLabel("To", { exact: true }).fill(day(0));
    await expect(page).toHaveURL(new RegExp(`to=${day(0)}`));
    await expect(page).toHaveURL(/status=failed/);
    expect(await references(page)).toContain(declined);
    // At 1280 px the dates sit in the filters' row, their boxes in line with the selects', and the
    // days chosen are said again as the rows write dates, whatever the browser shows in the fields.
    const kindBox = await page.getByLabel("Kind", { exact: true }).boundingBox();
    for (const label of ["From", "To"]) {
      const box = await page.getByLabel(label, { exact: true }).boundingBox();
      expect([box?.y, box?.height], `${label} in line with Kind`).toEqual([kindBox?.y, kindBox?.height]);
    }
    const dayWords = (offset: number) =>
      new Intl.DateTimeFormat("en-GB", { dateStyle: "medium", timeZone: "UTC" }).format(
        new Date(`${day(offset)}T00:00:00Z`),
      );
    await expect(page.getByTestId("history-range")).toHaveText(
      `From ${dayWords(-1)} to ${dayWords(0)}, UTC days, both included.`,
    );
    await page.getByLabel("To", { exact: true }).fill(day(3));
    await expect(page).toHaveURL(new RegExp(`to=${day(3)}`));
    await page.getByLabel("From", { exact: true }).fill(day(2));
    await expect(page).toHaveURL(new RegExp(`from=${day(2)}`));
    await expect(page.getByText("No top-ups match these filters.")).toBeVisible();
    await expect(page.getByRole("link", { name: "Export CSV" })).toHaveAttribute(
      "href",
      `/dashboard/history/export?status=failed&from=${day(2)}&to=${day(3)}`,
    );
    const [empty] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("link", { name: "Export CSV" }).click(),
    ]);
    expect(
      fs
        .readFileSync(await empty.path(), "utf8")
        .trimEnd()
        .split("\r\n"),
    ).toEqual([csv[0]]);
    await page.getByLabel("From", { exact: true }).fill(day(-1));
    await page.getByLabel("To", { exact: true }).fill(day(0));
    await expect(page).toHaveURL(new RegExp(`from=${day(-1)}&to=${day(0)}`));
    const [dated] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("link", { name: "Export CSV" }).click(),
    ]);
    // Named by its filters once: the days chosen, not the export's day as well.
    expect(dated.suggestedFilename()).toBe(`top-ups-${day(-1)}-to-${day(0)}-failed.csv`);
    expect(fs.readFileSync(await dated.path(), "utf8")).toContain(declined);

    // The export checks the session itself: without one there is no CSV.
    const anonymous = await page.context().browser()?.newContext();
    const response = await anonymous?.request.get("/dashboard/history/export", { maxRedirects: 0 });
    expect(response?.headers()["content-type"] ?? "").not.toContain("text/csv");
    await anonymous?.close();
  });

  test("a purchase awaiting payment can be completed from the history", async ({ page, request }) => {
    const reference = `api-${run}-auth`;
    expect((await apiPurchase(request, reference, org.cards.authentication_required, 500)).status).toBe(402);
    await page.goto("/dashboard/history");
    const before = await headerBalance(page);
    const row = page.locator(`[data-reference="${reference}"]`);
    await expect(row).toContainText("Awaiting payment");
    await row.getByRole("link", { name: /Complete payment/ }).click();
    await page.getByRole("button", { name: "Complete authentication" }).click();
    await expect(page.getByTestId("purchase-outcome")).toHaveAttribute("data-status", "paid");
    expect(await headerBalance(page)).toBe(before + 500);
    // Bought through the API, it was never in the dashboard's buy steps: none are shown.
    await expect(page.getByRole("list", { name: "Purchase steps" })).toHaveCount(0);
    // Under the title, the reference is called what it is.
    await expect(page.getByText(`Reference ${reference}`, { exact: true })).toBeVisible();

    // The API client's retry with the same reference now collects the paid purchase, no new charge.
    expect((await apiPurchase(request, reference, org.cards.authentication_required, 500)).status).toBe(200);
    await page.goto("/dashboard/history");
    await expect(page.locator(`[data-reference="${reference}"]`)).toHaveCount(1);
    expect(await headerBalance(page)).toBe(before + 500);
  });
});

test.describe("A purchase unresolved for over an hour", () => {
  test("shows as confirming with the bank in the history and on its page", async ({ page }) => {
    const stuck = readBuyFixtures().stuck;
    await signIn(page, stuck.admin);
    await page.goto("/dashboard/history");
    const row = page.locator('[data-reference="stuck-at-the-bank"]');
    await expect(row).toContainText("Confirming with the bank");
    await expect(row).not.toContainText("Processing");
    await row.getByRole("link").first().click();
    await expect(page.getByText("Confirming with the bank").first()).toBeVisible();
  });
});

test.describe("Overview", () => {
  test("shows the balance large and the five most recent top-ups", async ({ page }) => {
    await signIn(page, org.admin);
    await page.goto("/dashboard/history");
    const newest = (await references(page)).slice(0, 5);
    await page.goto("/dashboard");
    const balance = await headerBalance(page);
    await expect(page.getByTestId("overview-balance")).toHaveText(balance.toLocaleString("en-GB"));
    expect(await references(page)).toEqual(newest);
    await page.screenshot({ path: path.join(SCREENSHOTS, "overview.png"), fullPage: true });
  });
});
