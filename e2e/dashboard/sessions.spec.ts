import type { BrowserContext, Page } from "@playwright/test";
import { expect, test } from "../fixtures";
import { accountFixtures, signIn } from "./journey-helpers";

const account = accountFixtures();

/** What next-auth's own endpoint says of this context's cookie: the user id, or none. */
async function sessionUserId(context: BrowserContext): Promise<string | null> {
  const response = await context.request.get("/api/auth/session");
  expect(response.status()).toBe(200);
  const body = (await response.json()) as { userId?: string };
  return body.userId ?? null;
}

async function expectSentToSignIn(page: Page): Promise<void> {
  await page.goto("/dashboard");
  await expect(page).toHaveURL(/\/signin/);
}

test.describe("a member's sessions end when an admin changes their access", () => {
  test("a password reset, then a role change, each end the member's session; the admin's stays", async ({
    page,
    browser,
  }) => {
    // Three sign-ins (scrypt, by design slow).
    test.slow();
    const org = account.sessions;
    const memberContext = await browser.newContext();
    const memberPage = await memberContext.newPage();
    try {
      await signIn(memberPage, org.member);
      expect(await sessionUserId(memberContext)).toBe(org.member.userId);

      await signIn(page, org.admin);
      await page.goto("/dashboard/members");
      const memberRow = page.getByTestId("member-row").filter({ hasText: org.member.email });
      await memberRow.getByRole("button", { name: "Reset password" }).click();
      const shown = memberRow.getByTestId("reset-password-value");
      await expect(shown).toHaveText(/^\S{20,}$/);
      const password = (await shown.textContent()) ?? "";

      // The member's old cookie: no session, and not re-issued by polling the session endpoint.
      expect(await sessionUserId(memberContext)).toBeNull();
      expect(await sessionUserId(memberContext)).toBeNull();
      await expectSentToSignIn(memberPage);
      // The admin who reset it is still signed in.
      expect(await sessionUserId(page.context())).toBe(org.admin.userId);

      // Signed in again with the new password, then promoted: that session ends too.
      await signIn(memberPage, { email: org.member.email, password });
      expect(await sessionUserId(memberContext)).toBe(org.member.userId);
      await memberRow.getByLabel(/^Access level of/).selectOption("admin");
      await memberRow.getByRole("button", { name: "Change role" }).click();
      await expect(memberRow.getByText("Role saved.")).toBeVisible();
      expect(await sessionUserId(memberContext)).toBeNull();
      await expectSentToSignIn(memberPage);
      expect(await sessionUserId(page.context())).toBe(org.admin.userId);
    } finally {
      await memberContext.close();
    }
  });
});
