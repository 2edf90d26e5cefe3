import path from "node:path";
import { expect, type Page, test } from "@playwright/test";
import { readBuyFixtures, SCREENSHOTS, signIn } from "../dashboard/buy.fixtures";

/*
 * With Stripe (the test server), an admin removes a card saved on Stripe Checkout's page and one the
 * operator saved with --card, the default: both look alike and are removed alike, and History and
 * the Overview keep naming the card each purchase was made with.
 */

async function buyWith(page: Page, last4: string): Promise<void> {
  await page.goto("/dashboard/buy");
  await page.locator('label[for="bundle-100"]').click();
  await page.getByRole("radio", { name: new RegExp(`•••• ${last4}`) }).check();
  await page.getByRole("button", { name: "Review purchase" }).click();
  await page.getByRole("button", { name: /^Buy / }).click();
  await page.waitForURL(/\/dashboard\/history\/tu_\w+\?bought=1$/);
  await expect(page.getByTestId("purchase-outcome")).toHaveAttribute("data-status", "paid");
}

test("cards saved through Checkout and by the operator are removed alike; History keeps their labels", async ({
  page,
}) => {
  const { cardRemover } = readBuyFixtures();
  await signIn(page, cardRemover.admin);

  // A card saved on Checkout's page, beside the operator's --card ones.
  await page.goto("/dashboard/payment-details");
  await page.getByRole("button", { name: "Add a card with Stripe Checkout" }).click();
  await expect(page.getByRole("heading", { name: "Save a card (test server)" })).toBeVisible();
  await page.getByLabel("Card").selectOption("pm_card_mastercard");
  await page.getByRole("button", { name: "Save card" }).click();
  await expect(page).toHaveURL(/\/dashboard\/payment-details\?added=1$/);

  const cards = page.getByTestId("payment-method");
  const card = (last4: string) => cards.filter({ hasText: `•••• ${last4}` });
  // The same heading, behaviour and Remove button whichever way the card was saved.
  await expect(card("4444").getByRole("heading")).toHaveText("Mastercard •••• 4444 — test card: Succeeds");
  await expect(card("4242").getByRole("heading")).toHaveText("Visa •••• 4242 — test card: Succeeds");
  await expect(card("3184").getByRole("heading")).toHaveText(
    "Visa •••• 3184 — test card: Asks for authentication; paid once completed",
  );
  await expect(cards.getByRole("button", { name: /^Remove .* •••• \d{4}$/ })).toHaveCount(5);
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.screenshot({ path: path.join(SCREENSHOTS, "payment-details-stripe-1280.png"), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: path.join(SCREENSHOTS, "payment-details-stripe-390.png"), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 900 });

  await buyWith(page, "4444");
  await buyWith(page, "4242");

  await page.goto("/dashboard/payment-details");
  await card("4444").getByRole("button", { name: "Remove Mastercard •••• 4444" }).click();
  await expect(
    page.getByText("The card was removed: it is no longer offered or charged. Past purchases keep it."),
  ).toBeVisible();
  await card("4242").getByRole("button", { name: "Remove Visa •••• 4242" }).click();
  await expect(page.getByText(/It was the default, so the organisation has none now/)).toBeVisible();
  await expect(cards).toHaveCount(3);
  await expect(card("4444")).toHaveCount(0);
  await expect(card("4242")).toHaveCount(0);
  await expect(page.getByText("Default", { exact: true })).toHaveCount(0);

  // Stripe no longer knows either card: each purchase still names the card it was made with.
  await page.goto("/dashboard/history");
  const table = page.getByRole("table");
  await expect(table.getByRole("row").filter({ hasText: "Mastercard •••• 4444" })).toHaveCount(1);
  await expect(table.getByRole("row").filter({ hasText: "Visa •••• 4242" })).toHaveCount(1);
  await expect(table.getByText(/pm_/)).toHaveCount(0);
  await page.goto("/dashboard");
  const recent = page.getByRole("table");
  await expect(recent.getByRole("row").filter({ hasText: "Mastercard •••• 4444" })).toHaveCount(1);
  await expect(recent.getByRole("row").filter({ hasText: "Visa •••• 4242" })).toHaveCount(1);
  await expect(recent.getByText(/pm_/)).toHaveCount(0);
});
