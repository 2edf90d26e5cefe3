import path from "node:path";
import { expect, test } from "../fixtures";
import { readBuyFixtures, SCREENSHOTS, signIn as signInBuyer } from "./buy.fixtures";
import { accountFixtures, signIn } from "./journey-helpers";

const account = accountFixtures();

test("a card removed in one tab and then in another: the second tab says so, not an error page", async ({ page }) => {
  const org = account.doubleRemoval;
  await signIn(page, org.admin);
  await page.goto("/dashboard/payment-details");
  const staleTab = await page.context().newPage();
  await staleTab.goto("/dashboard/payment-details");
  const mastercard = (tab: typeof page) =>
    tab
      .getByTestId("payment-method")
      .filter({ hasText: "•••• 4444" })
      .getByRole("button", { name: "Remove Mastercard •••• 4444" });

  await mastercard(page).click();
  await expect(
    page.getByText("The card was removed: it is no longer offered or charged. Past purchases keep it."),
  ).toBeVisible();
  await expect(page.getByTestId("payment-method")).toHaveCount(1);

  // The other tab still shows the card: removing it again is refused in words, on the same page.
  await mastercard(staleTab).click();
  await expect(staleTab.getByRole("alert").filter({ hasText: "This card is no longer saved" })).toBeVisible();
  await expect(staleTab.getByRole("heading", { name: "Payment details" })).toBeVisible();
  await expect(staleTab.getByText(/Application error|Something went wrong/)).toHaveCount(0);
  await staleTab.reload();
  await expect(staleTab.getByTestId("payment-method")).toHaveCount(1);
  await staleTab.close();
});

test("a purchase keeps its card's label after the card is removed, in History and on its own page", async ({
  page,
}) => {
  const { cardRemover } = readBuyFixtures();
  await signInBuyer(page, cardRemover.admin);
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto("/dashboard/payment-details");
  await page.screenshot({ path: path.join(SCREENSHOTS, "payment-details-simulated-1280.png"), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: path.join(SCREENSHOTS, "payment-details-simulated-390.png"), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 900 });

  await page.goto("/dashboard/buy");
  await page.locator('label[for="bundle-100"]').click();
  await page.getByRole("radio", { name: /•••• 4242/ }).check();
  await page.getByRole("button", { name: "Review purchase" }).click();
  await page.getByRole("button", { name: /^Buy / }).click();
  await page.waitForURL(/\/dashboard\/history\/tu_\w+\?bought=1$/);
  const purchase = page.url();

  await page.goto("/dashboard/payment-details");
  await page
    .getByTestId("payment-method")
    .filter({ hasText: "•••• 4242" })
    .getByRole("button", { name: "Remove Visa •••• 4242" })
    .click();
  await expect(page.getByText(/It was the default, so the organisation has none now/)).toBeVisible();

  await page.goto("/dashboard/history");
  const table = page.getByRole("table");
  await expect(table.getByRole("row").filter({ hasText: "Visa •••• 4242" })).toHaveCount(1);
  await expect(table.getByText(/pm_/)).toHaveCount(0);
  await page.goto(purchase);
  await expect(page.getByText("Visa •••• 4242")).toBeVisible();
});
