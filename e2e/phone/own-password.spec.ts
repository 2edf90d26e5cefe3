import path from "node:path";
import { axeViolations } from "../accessibility";
import { SCREENSHOTS } from "../dashboard/buy.fixtures";
import { accountFixtures, signIn } from "../dashboard/journey-helpers";
import { expect, test } from "../fixtures";

/*
 * Your account on a phone (390 px, touch), as an admin: reached from the tabs, it fits the screen,
 * and the password is changed with this session kept (the sessions elsewhere that it ends are
 * e2e/dashboard/own-password.spec.ts's). Its own organisation: the journeys keep signing in as theirs.
 */

test("an admin changes their password on a phone and stays signed in", async ({ page }) => {
  // A sign-in, a password check and a new hash: scrypt at the production cost.
  test.slow();
  const org = accountFixtures().phonePassword;
  await signIn(page, org.admin);
  // On a phone the tabs open from the header's menu.
  const menu = page.getByTestId("dashboard-menu");
  await menu.locator("summary").tap();
  const tab = menu.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Your account" });
  await tab.scrollIntoViewIfNeeded();
  await tab.tap();
  await expect(page.getByRole("heading", { name: "Your account", level: 1 })).toBeVisible();
  await expect(page.getByTestId("account-email")).toHaveText(org.admin.email);

  const next = "phone typing is slow but long";
  await page.getByLabel("Current password").fill(org.admin.password);
  await page.getByLabel("New password", { exact: true }).fill(next);
  await page.getByLabel("New password again").fill(next);
  const submit = page.getByRole("button", { name: "Change password" });
  await submit.scrollIntoViewIfNeeded();
  await submit.tap();
  await expect(page.getByText("Your password was changed")).toBeVisible({ timeout: 30_000 });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow, "Your account scrolls sideways").toBeLessThanOrEqual(0);
  expect(await axeViolations(page)).toEqual([]);
  await page.screenshot({ path: path.join(SCREENSHOTS, "phone-account.png"), fullPage: true });

  // Still signed in: another page opens, not the sign-in page.
  await page.goto("/dashboard/members");
  await expect(page.getByRole("heading", { name: "Members", level: 1 })).toBeVisible();
});
