import { expect, test } from "@playwright/test";
import { headerBalance, readBuyFixtures, signIn } from "./buy.fixtures";

/*
 * What a new user met in their first hour: a dead-end home page, a missing favicon, bare 404s, a
 * header balance that went stale. (Phones have their own project: e2e/phone.)
 */

test("the home page says what the product is and leads to sign-in and the API documentation", async ({ page }) => {
  await page.goto("/");
  await expect(page.getByRole("heading", { name: "Points", level: 1 })).toBeVisible();
  // Keys do more than buy: the page says they spend and read too.
  await expect(
    page.getByText(/use the API with organisation keys, each scoped to buy, spend or only read/),
  ).toBeVisible();
  await expect(page.getByText("POST /v3/points/spends")).toBeVisible();
  await page.getByRole("link", { name: "API guide" }).click();
  await expect(page).toHaveURL(/\/docs\/guide$/);
  await expect(page.getByRole("heading", { name: "POST /v3/points/top-ups" })).toBeVisible();
  await expect(page.getByRole("cell", { name: "payment_action_required" })).toBeVisible();
  // The guide's old address still leads to it.
  await page.goto("/docs/api");
  await expect(page).toHaveURL(/\/docs\/guide$/);
  await page.goto("/");
  await page.getByRole("link", { name: "Sign in" }).click();
  await expect(page.getByRole("heading", { name: "Sign in to Points" })).toBeVisible();
});

test("every page has an icon", async ({ page, request }) => {
  await page.goto("/signin");
  const href = await page.locator('link[rel="icon"]').first().getAttribute("href");
  expect(href).toBeTruthy();
  const icon = await request.get(href ?? "");
  expect(icon.status()).toBe(200);
  expect(icon.headers()["content-type"]).toContain("image/svg+xml");
});

test("a missing page or another organisation's purchase shows a 404 inside the dashboard, with a way back", async ({
  page,
}) => {
  const { ledger } = readBuyFixtures();
  await signIn(page, ledger.admin);
  const response = await page.goto("/dashboard/buy/tu_doesnotexist0000000");
  expect(response?.status()).toBe(404);
  await expect(page.getByRole("heading", { name: "Not found" })).toBeVisible();
  await expect(page.getByRole("navigation", { name: "Dashboard" })).toBeVisible();
  await page.getByRole("link", { name: "Back to the overview" }).click();
  await expect(page).toHaveURL(/\/dashboard$/);

  const outside = await page.goto("/no-such-page");
  expect(outside?.status()).toBe(404);
  await expect(page.getByRole("heading", { name: "This page does not exist" })).toBeVisible();
  await expect(page.getByRole("link", { name: "Dashboard" })).toBeVisible();
});

test("the header balance is current after a purchase through the API and a move to another page", async ({
  page,
  request,
}) => {
  const { ledger } = readBuyFixtures();
  await signIn(page, ledger.admin);
  const nav = page.getByRole("navigation", { name: "Dashboard" });
  await nav.getByRole("link", { name: "History", exact: true }).click();
  await expect(page).toHaveURL(/\/dashboard\/history$/);
  const before = await headerBalance(page);
  const bought = await request.post("/v3/points/top-ups", {
    headers: { Authorization: `Bearer ${ledger.apiKey}` },
    data: { points: 250, currency: "USD", payment_source_id: ledger.cards.visa, reference: `header-${Date.now()}` },
  });
  expect(bought.status()).toBe(201);
  // A client-side move between dashboard pages: the shared layout is not rendered again.
  await nav.getByRole("link", { name: "Limits", exact: true }).click();
  await expect(page).toHaveURL(/\/dashboard\/limits$/);
  await expect.poll(() => headerBalance(page)).toBe(before + 250);
});

test("leaving Settings with unsaved changes asks first; staying keeps them", async ({ page }) => {
  const { ledger } = readBuyFixtures();
  await signIn(page, ledger.admin);
  await page.goto("/dashboard/settings");
  await page.getByLabel("Default currency").selectOption("GBP");
  await expect(page.getByText("Unsaved changes: the API still follows the saved settings.")).toBeVisible();

  const asked: string[] = [];
  page.once("dialog", (dialog) => {
    asked.push(dialog.message());
    void dialog.dismiss();
  });
  await page
    .getByRole("navigation", { name: "Dashboard" })
    .getByRole("link", { name: "Overview", exact: true })
    .click();
  await expect.poll(() => asked.length).toBe(1);
  expect(asked[0]).toContain("not saved");
  await expect(page).toHaveURL(/\/dashboard\/settings$/);
  await expect(page.getByLabel("Default currency")).toHaveValue("GBP");

  page.once("dialog", (dialog) => void dialog.accept());
  await page
    .getByRole("navigation", { name: "Dashboard" })
    .getByRole("link", { name: "Overview", exact: true })
    .click();
  await expect(page).toHaveURL(/\/dashboard$/);
});
