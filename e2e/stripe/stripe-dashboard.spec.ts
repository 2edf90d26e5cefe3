import { expect, type Page, test } from "@playwright/test";
import { headerBalance, readBuyFixtures, signIn } from "../dashboard/buy.fixtures";

/*
 * The dashboard with Stripe as the billing provider, against the Stripe-compatible test server
 * (E2E_PROVIDER=stripe): cards are added on Stripe Checkout's page, and a card that needs 3-D
 * Secure is completed on the bank's page, then comes back paid.
 */

/** Chooses a bundle and a card (by its last four digits), reviews, and buys. */
async function buy(page: Page, points: number, last4: string): Promise<void> {
  await page.goto("/dashboard/buy");
  await page.locator(`label[for="bundle-${points}"]`).click();
  await page.getByRole("radio", { name: new RegExp(`•••• ${last4}`) }).check();
  await page.getByRole("button", { name: "Review purchase" }).click();
  await page.getByRole("button", { name: /^Buy / }).click();
  await page.waitForURL(/\/dashboard\/history\/tu_\w+\?bought=1$/);
}

test("an organisation's first card, added through Stripe Checkout, is saved and becomes the default", async ({
  page,
}) => {
  const { cardless } = readBuyFixtures();
  await signIn(page, cardless.admin);
  await page.goto("/dashboard/payment-details");
  await expect(page.getByText("No usable payment method is saved yet.")).toBeVisible();
  await page.getByRole("button", { name: "Add a card with Stripe Checkout" }).click();

  await expect(page.getByRole("heading", { name: "Save a card (test server)" })).toBeVisible();
  await page.getByLabel("Card").selectOption("pm_card_mastercard");
  await page.getByRole("button", { name: "Save card" }).click();

  await expect(page).toHaveURL(/\/dashboard\/payment-details\?added=1$/);
  await expect(page.getByText("Your card was saved and can be used at once.")).toBeVisible();
  await expect(page.getByText("Mastercard •••• 4444").first()).toBeVisible();
  await expect(page.getByText("Default", { exact: true }).first()).toBeVisible();
});

test("a card that needs 3-D Secure is completed on the bank's page and comes back paid, credited once", async ({
  page,
}) => {
  const { buyer } = readBuyFixtures();
  await signIn(page, buyer.admin);
  const before = await headerBalance(page);
  await buy(page, 500, "3184");
  await expect(page.getByTestId("purchase-outcome")).toHaveAttribute("data-status", "awaiting_payment");

  await page.getByRole("button", { name: "Complete payment" }).click();
  await expect(page.getByRole("heading", { name: "3-D Secure test page" })).toBeVisible();
  await page.getByRole("button", { name: "Complete" }).click();

  await expect(page).toHaveURL(/\/dashboard\/history\/tu_[A-Za-z0-9]+\?bought=1$/);
  await expect(page.getByTestId("purchase-outcome")).toHaveAttribute("data-status", "paid");
  // The return page and the webhook both settle it; the Points arrive once.
  await page.goto("/dashboard");
  expect(await headerBalance(page)).toBe(before + 500);
});

test("a purchase with the default card is paid at once", async ({ page }) => {
  const { ledger } = readBuyFixtures();
  await signIn(page, ledger.admin);
  await buy(page, 100, "4242");
  await expect(page.getByTestId("purchase-outcome")).toHaveAttribute("data-status", "paid");
});
