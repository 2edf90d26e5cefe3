import { expect, test } from "../fixtures";
import { accountFixtures, recordPostBodies, signIn } from "./journey-helpers";

const account = accountFixtures();

test.describe("an admin manages the people", () => {
  test("reset a password, change roles, keep the last admin, remove a member", async ({ page, browser }) => {
    // Three sign-ins (scrypt, by design slow): near 30 s on a busy CI machine.
    test.slow();
    const org = account.team;
    await signIn(page, org.admin);
    await page.goto("/dashboard/members");
    const memberRow = page.getByTestId("member-row").filter({ hasText: org.member.email });
    const adminRow = page.getByTestId("member-row").filter({ hasText: org.admin.email });

    // Reset: the new password is shown once, works, and is not posted back by the next submit.
    await memberRow.getByRole("button", { name: "Reset password" }).click();
    const shown = memberRow.getByTestId("reset-password-value");
    await expect(shown).toHaveText(/^\S{20,}$/);
    const password = (await shown.textContent()) ?? "";
    const fresh = await browser.newContext();
    const member = await fresh.newPage();
    await signIn(member, { email: org.member.email, password });
    await fresh.close();

    // Promote, then the admin demotes themselves: allowed, since another admin is left...
    const bodies = recordPostBodies(page);
    await memberRow.getByLabel(/^Access level of/).selectOption("admin");
    await memberRow.getByRole("button", { name: "Change role" }).click();
    await expect(memberRow.getByText("Role saved.")).toBeVisible();
    for (const body of bodies) expect(body).not.toContain(password);
    await expect(memberRow).toContainText("Admin");

    // ...but the last admin cannot be demoted.
    await memberRow.getByLabel(/^Access level of/).selectOption("member");
    await memberRow.getByRole("button", { name: "Change role" }).click();
    await expect(memberRow.getByText("Role saved.")).toBeVisible();
    await adminRow.getByLabel(/^Access level of/).selectOption("member");
    await adminRow.getByRole("button", { name: "Change role" }).click();
    await expect(adminRow.getByRole("alert")).toHaveText(/always keeps at least one admin/);

    // Nobody removes themselves; a member is removed after a confirmation.
    await expect(adminRow.getByRole("button", { name: "Remove" })).toHaveCount(0);
    await memberRow.getByRole("button", { name: "Remove" }).click();
    await memberRow.getByRole("button", { name: "Yes, remove" }).click();
    await expect(page.getByTestId("member-row").filter({ hasText: org.member.email })).toHaveCount(0);

    const gone = await browser.newContext();
    const removed = await gone.newPage();
    await removed.goto("/signin");
    await removed.getByLabel("Email").fill(org.member.email);
    await removed.getByLabel("Password").fill(password);
    await removed.getByRole("button", { name: "Sign in" }).click();
    await expect(removed).toHaveURL(/\/signin/);
    await gone.close();
  });

  test("markup is not an email address", async ({ page }) => {
    await signIn(page, account.team.admin);
    await page.goto("/dashboard/members");
    await page.getByLabel("Email", { exact: true }).fill("<script>alert(1)</script>@x.com");
    await page.getByRole("button", { name: "Add person" }).click();
    await expect(page.getByText("Enter a valid email address.")).toBeVisible();
    await expect(page.getByTestId("member-row").filter({ hasText: "script" })).toHaveCount(0);
  });
});
