import path from "node:path";
import type { BrowserContext } from "@playwright/test";
import { axeViolations } from "../accessibility";
import { expect, test } from "../fixtures";
import { SCREENSHOTS } from "./buy.fixtures";
import { accountFixtures, signIn } from "./journey-helpers";

/*
 * Your account → Change password, as a member (the page is everyone's): a password too short and a
 * wrong current one are refused on their fields; the right one changes it, ends the member's session
 * in another browser, keeps this one, and is in the audit log; the new password signs in.
 */

const org = accountFixtures().password;
const NEW_PASSWORD = "a lighthouse of plain words";

/** What next-auth's own endpoint says of this context's cookie: the user id, or none. */
async function sessionUserId(context: BrowserContext): Promise<string | null> {
  const response = await context.request.get("/api/auth/session");
  expect(response.status()).toBe(200);
  return ((await response.json()) as { userId?: string }).userId ?? null;
}

test("a member changes their own password: other sessions end, this one stays", async ({ page, browser }) => {
  // Three sign-ins, two password checks and a new hash: each a scrypt hash at the production cost.
  test.slow();
  const elsewhere = await browser.newContext();
  try {
    const otherPage = await elsewhere.newPage();
    await signIn(otherPage, org.member);
    await signIn(page, org.member);

    await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Your account" }).click();
    await expect(page.getByRole("heading", { name: "Your account", level: 1 })).toBeVisible();
    await expect(page.getByTestId("account-email")).toHaveText(org.member.email);

    const current = page.getByLabel("Current password");
    const fresh = page.getByLabel("New password", { exact: true });
    const again = page.getByLabel("New password again");
    const submit = page.getByRole("button", { name: "Change password" });

    // Too short: refused on its field before any password is checked.
    await current.fill(org.member.password);
    await fresh.fill("too short");
    await again.fill("too short");
    await submit.click();
    await expect(page.getByText("Use at least 12 characters (this has 9).")).toBeVisible();
    await expect(fresh).toHaveAttribute("aria-invalid", "true");

    // A wrong current password: refused, and nothing changes.
    await current.fill(`${org.member.password}x`);
    await fresh.fill(NEW_PASSWORD);
    await again.fill(NEW_PASSWORD);
    await submit.click();
    // Each password check is a scrypt hash at the production cost: slow on a busy machine.
    await expect(page.getByText("That is not your current password; nothing was changed.")).toBeVisible({
      timeout: 30_000,
    });
    await expect(current).toHaveAttribute("aria-invalid", "true");
    expect(await sessionUserId(elsewhere)).toBe(org.member.userId);

    await current.fill(org.member.password);
    await submit.click();
    await expect(page.getByText("Your password was changed")).toBeVisible({ timeout: 30_000 });
    await expect(current).toHaveValue("");
    await expect(fresh).toHaveValue("");
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: path.join(SCREENSHOTS, "account.png"), fullPage: true });

    // This browser is still signed in; the other one is not, and is sent to sign in.
    expect(await sessionUserId(page.context())).toBe(org.member.userId);
    expect(await sessionUserId(elsewhere)).toBeNull();
    await otherPage.goto("/dashboard");
    await expect(otherPage).toHaveURL(/\/signin/);

    await page.goto("/dashboard/audit?action=member.password_changed");
    await expect(page.getByRole("heading", { name: "Audit log", level: 1 })).toBeVisible();
    await expect(page.locator("main")).toContainText(org.member.email);

    // The new password signs in (that the old one no longer does is lib/points/accounts/own-password.test.ts's).
    await signIn(otherPage, { email: org.member.email, password: NEW_PASSWORD });
    expect(await sessionUserId(elsewhere)).toBe(org.member.userId);
  } finally {
    await elsewhere.close();
  }
});
