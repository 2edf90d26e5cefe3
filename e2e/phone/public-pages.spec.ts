import { expect, test } from "@playwright/test";

/* The pages a person meets before signing in, on a phone: none scrolls sideways (a wide table or
 * code block scrolls inside its own box). */

for (const [url, heading] of [
  ["/", "Points"],
  ["/signin", "Sign in to Points"],
  ["/docs/api", "Points API"],
  ["/no-such-page", "This page does not exist"],
] as const) {
  test(`${url} fits a phone's width`, async ({ page }) => {
    await page.goto(url);
    await expect(page.getByRole("heading", { level: 1, name: heading, exact: true })).toBeVisible();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow, `${url} scrolls sideways`).toBeLessThanOrEqual(0);
    // `next start` seeds no demo: no sign-in page of it says where one's password is.
    await expect(page.getByTestId("dev-sign-in-hint")).toHaveCount(0);
  });
}
