import { expect, test } from "../fixtures";
import { accountFixtures, signIn } from "./journey-helpers";

const account = accountFixtures();

test("a card removed in one tab and then in another: the second tab says so, not an error page", async ({ page }) => {
  const org = account.doubleRemoval;
  await signIn(page, org.admin);
  await page.goto("/dashboard/payment-details");
  const staleTab = await page.context().newPage();
  await staleTab.goto("/dashboard/payment-details");
  const mastercard = (tab: typeof page) =>
    tab.getByTestId("payment-method").filter({ hasText: "•••• 4444" }).getByRole("button", { name: "Remove test card" });

  await mastercard(page).click();
  await expect(page.getByText("The test card was removed: it is no longer listed or charged.")).toBeVisible();
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
