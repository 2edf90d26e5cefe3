import path from "node:path";
import type { Page } from "@playwright/test";
import type { AccountFixtureOrganization } from "../dashboard/account.fixtures";
import { SCREENSHOTS } from "../dashboard/buy.fixtures";
import { accountFixtures, headerBalance, signIn } from "../dashboard/journey-helpers";
import { expect, test } from "../fixtures";

/*
 * The main journeys of an admin on a phone (the `phone` project: 390 x 844, touch), with the
 * `phone` organisation (a Visa that pays, a Visa that declines). After every step the page must
 * fit the screen: nothing scrolls sideways, and what the step needs is on screen when scrolled to.
 * The tests run in order in one worker: each reads the balance the one before left.
 */

test.describe.configure({ mode: "serial" });

let org: AccountFixtureOrganization;

test.beforeAll(() => {
  org = accountFixtures().phone;
});

test.beforeEach(async ({ page }) => {
  await signIn(page, org.admin);
});

/** How far the page scrolls sideways: 0 when it fits a phone's width. */
async function expectFitsTheScreen(page: Page, where: string): Promise<void> {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow, `${where} scrolls sideways`).toBeLessThanOrEqual(0);
}

/** The dashboard's tabs on a phone: in the header's menu, opened first when it is closed. */
async function nav(page: Page) {
  const menu = page.getByTestId("dashboard-menu");
  if ((await menu.getAttribute("open")) === null) await menu.locator("summary").tap();
  return menu.getByRole("navigation", { name: "Dashboard" });
}

test("every tab can be reached by touch, and no page scrolls sideways", async ({ page }) => {
  const tabs = [
    "Overview",
    "Buy Points",
    "History",
    "Payment details",
    "Settings",
    "API keys",
    "Webhooks",
    "Limits",
    "Members",
    "Audit log",
    "Your account",
  ];
  for (const name of tabs) {
    // The header is one row: the page's heading starts at most 120 px down, the tabs in the menu.
    const header = await page.getByRole("banner").boundingBox();
    expect(header?.height, `the header above ${name}`).toBeLessThanOrEqual(120);
    // The menu's tabs wrap onto more lines rather than scroll: each is on screen without a hidden swipe.
    const tab = (await nav(page)).getByRole("link", { name, exact: true });
    await expect(tab).toBeInViewport();
    await tab.tap();
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    // Choosing a tab closes the menu over the page.
    await expect(page.getByTestId("dashboard-menu")).not.toHaveAttribute("open");
    await expect((await nav(page)).getByRole("link", { name, exact: true })).toHaveAttribute("aria-current", "page");
    await expectFitsTheScreen(page, name);
  }
});

test("buy a bundle: choose, review, pay; the balance and History follow", async ({ page }) => {
  const before = await headerBalance(page);
  await (await nav(page)).getByRole("link", { name: "Buy Points", exact: true }).tap();
  await expectFitsTheScreen(page, "Buy Points");
  await page.locator('label[for="bundle-250"]').tap();
  await page.getByRole("radio", { name: /•••• 4242/ }).check();
  const reviewButton = page.getByRole("button", { name: "Review purchase" });
  await reviewButton.scrollIntoViewIfNeeded();
  await reviewButton.tap();
  await expect(page.getByRole("heading", { name: "Confirm your purchase" })).toBeVisible();
  await expectFitsTheScreen(page, "the review");
  const reference = await page.locator('input[name="reference"]').inputValue();
  await page.getByRole("button", { name: /^Buy 250 Points/ }).tap();

  const outcome = page.getByTestId("purchase-outcome");
  await expect(outcome).toHaveAttribute("data-status", "paid");
  await expectFitsTheScreen(page, "the paid purchase");
  expect(await headerBalance(page)).toBe(before + 250);

  await (await nav(page)).getByRole("link", { name: "History", exact: true }).tap();
  const row = page.locator(`[data-testid="top-up-row"][data-reference="${reference}"]`);
  await expect(row).toHaveCount(1);
  await expect(row).toContainText("Paid");
  await expectFitsTheScreen(page, "History");
  // The date range on a phone: today (UTC) keeps the purchase; a range in the future shows none.
  const today = new Date().toISOString().slice(0, 10);
  await page.getByLabel("From", { exact: true }).fill(today);
  await expect(page).toHaveURL(new RegExp(`from=${today}`));
  await expect(row).toHaveCount(1);
  await page.getByLabel("From", { exact: true }).fill("2999-01-01");
  await expect(page.getByText("No top-ups and spends match these filters.")).toBeVisible();
  await expectFitsTheScreen(page, "History filtered by date");
  await page.getByRole("link", { name: "Clear" }).tap();
  await expect(row).toHaveCount(1);
  // The purchase's own page, under History: its state, without the buy steps.
  // On a phone each row is a card, and all of the card opens the purchase.
  await row.tap({ position: { x: 12, y: 12 } });
  await expect(page).toHaveURL(/\/dashboard\/history\/tu_\w+$/);
  await expect(outcome.getByRole("heading", { name: "Paid", exact: true })).toBeVisible();
  await expect(page.getByRole("list", { name: "Purchase steps" })).toHaveCount(0);
  await expect((await nav(page)).getByRole("link", { name: "History", exact: true })).toHaveAttribute(
    "aria-current",
    "page",
  );
  await expectFitsTheScreen(page, "the purchase's page");
});

test("a declined card says why on a phone too, and adds nothing", async ({ page }) => {
  const before = await headerBalance(page);
  await page.goto("/dashboard/buy");
  await page.locator('label[for="bundle-100"]').tap();
  await page.getByRole("radio", { name: /•••• 0002/ }).check();
  await page.getByRole("button", { name: "Review purchase" }).tap();
  await page.getByRole("button", { name: /^Buy 100 Points/ }).tap();
  await expect(page.getByTestId("purchase-outcome")).toHaveAttribute("data-status", "failed");
  await expect(page.getByTestId("outcome-reason")).toHaveText("Your card was declined.");
  await expectFitsTheScreen(page, "the declined purchase");
  expect(await headerBalance(page)).toBe(before);
});

test("copy a payment method ID for the API", async ({ page, context }) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  const visa = org.paymentMethods.find((method) => method.kind === "visa");
  if (!visa) throw new Error("The phone organisation has no Visa.");
  await page.goto("/dashboard/payment-details");
  await expectFitsTheScreen(page, "Payment details");
  const card = page.getByRole("region", { name: visa.label });
  await expect(card.getByTestId("payment-method-id")).toHaveText(visa.id);
  await card.getByRole("button", { name: /^Copy ID/ }).tap();
  await expect(card.getByRole("button", { name: "Copied" })).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(visa.id);
  // A row per card; its example opens on demand and stays inside its box.
  const row = await card.boundingBox();
  expect(row?.height, "the card's row").toBeLessThanOrEqual(200);
  await card.getByText("Example purchase with this card").tap();
  const example = card.getByTestId("curl-example");
  await expect(example).toBeVisible();
  const box = await example.boundingBox();
  expect((box?.x ?? 0) + (box?.width ?? 0)).toBeLessThanOrEqual(390);
  expect(await example.evaluate((pre) => pre.scrollWidth - pre.clientWidth)).toBeLessThanOrEqual(0);
  await expectFitsTheScreen(page, "Payment details with an example open");
});

test("save settings, then create a named API key that is shown once", async ({ page }) => {
  await page.goto("/dashboard/settings");
  await expectFitsTheScreen(page, "Settings");
  await page.getByLabel("Default currency").selectOption("EUR");
  await page.getByRole("button", { name: "Save settings" }).tap();
  await expect(page.getByText("Settings saved")).toBeVisible();
  await page.reload();
  await expect(page.getByLabel("Default currency")).toHaveValue("EUR");

  await (await nav(page)).getByRole("link", { name: "API keys", exact: true }).tap();
  await page.getByLabel("Name", { exact: true }).fill("Till on the shop floor");
  await page.getByRole("button", { name: "Create API key" }).tap();
  const shown = page.getByTestId("new-api-key-value");
  await expect(shown).toHaveText(/^pts_/);
  await expect(page.getByLabel("Name", { exact: true })).toHaveValue("");
  const row = page.locator(
    `[data-testid="api-key-row"][data-prefix="${((await shown.textContent()) ?? "").slice(0, 12)}"]`,
  );
  await expect(row.getByTestId("api-key-name")).toHaveText("Till on the shop floor");
  await page.screenshot({ path: path.join(SCREENSHOTS, "phone-api-keys.png"), fullPage: true });
  await expectFitsTheScreen(page, "API keys with a new key shown");
  // The whole key can be read (or selected) on a phone: it wraps instead of running off the screen.
  const box = await shown.boundingBox();
  expect(box, "the new key is laid out").not.toBeNull();
  expect((box?.x ?? 0) + (box?.width ?? 0)).toBeLessThanOrEqual(390);
});

test("add a member, whose password is shown once; Limits reads plainly", async ({ page }) => {
  await page.goto("/dashboard/members");
  const email = `phone-${Date.now().toString(36)}@e2e-account.example`;
  await page.getByLabel("Email").fill(email);
  await page.getByRole("button", { name: "Add person" }).tap();
  await expect(page.getByTestId("new-member-password")).toBeVisible();
  await expect(page.getByTestId("member-row").filter({ hasText: email })).toHaveCount(1);
  await expectFitsTheScreen(page, "Members with a new member");

  await (await nav(page)).getByRole("link", { name: "Limits", exact: true }).tap();
  await expect(page.getByRole("heading", { name: "Limits", level: 1 })).toBeVisible();
  await expectFitsTheScreen(page, "Limits");
});

test("sign out from a phone", async ({ page }) => {
  await nav(page);
  const signOut = page.getByTestId("dashboard-menu").getByRole("button", { name: "Sign out" });
  await signOut.scrollIntoViewIfNeeded();
  await signOut.tap();
  await expect(page.getByText("You have been signed out.")).toBeVisible();
  await expectFitsTheScreen(page, "the sign-in page");
});
