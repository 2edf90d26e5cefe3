import { expect, test } from "../fixtures";
import { accountFixtures, signIn } from "./journey-helpers";

const account = accountFixtures();

test("Limits reads 'No limit' as a normal value and says what the daily count includes", async ({ page }) => {
  await signIn(page, account.cards.admin);
  await page.goto("/dashboard/limits");
  const daily = page.getByTestId("limit-daily");
  await expect(daily).toContainText("Points bought or awaiting payment in the last 24 hours");
  const noLimit = daily.getByText("No limit", { exact: true });
  const title = daily.getByRole("heading", { name: "Daily Points" });
  // The same ink as the card's title, not the pale grey of something switched off.
  const colour = (locator: typeof title) => locator.evaluate((element) => getComputedStyle(element).color);
  expect(await colour(noLimit)).toBe(await colour(title));
});
