import path from "node:path";
import type { Page } from "@playwright/test";
import { encode } from "next-auth/jwt";
import { expect, readFixtures, test } from "../fixtures";
import type { AccountFixtures } from "./account.fixtures";
import { DASHBOARD_PAGES } from "./journey-helpers";

const SCREENSHOTS = path.join(process.cwd(), "e2e", ".artifacts", "screenshots");

/** The organisations e2e/serve.ts provisioned for these specs (see account.fixtures.ts). */
function accountFixtures(): AccountFixtures {
  const all: object = readFixtures();
  if (!("account" in all)) throw new Error("fixtures.json has no `account` key: provisionAccountFixtures did not run.");
  return all.account as AccountFixtures;
}

async function fillSignIn(page: Page, email: string, password: string): Promise<void> {
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
}

test.describe("signing in and out", () => {
  const org = accountFixtures().signin;

  test("the right password opens the organisation's dashboard", async ({ page }) => {
    await page.goto("/signin");
    // `next start` seeds no demo and says nothing of one (e2e/dev checks the hint of `npm run dev`).
    await expect(page.getByTestId("dev-sign-in-hint")).toHaveCount(0);
    await page.screenshot({ path: path.join(SCREENSHOTS, "signin.png"), fullPage: true });
    await fillSignIn(page, org.admin.email, org.admin.password);
    await expect(page).toHaveURL(/\/dashboard$/);
    const header = page.getByRole("banner");
    await expect(header).toContainText(org.name);
    await expect(header).toContainText(org.admin.email);
    await expect(header.getByText("admin", { exact: true })).toBeVisible();
  });

  test("a wrong password is refused without saying which part was wrong, and opens nothing", async ({ page }) => {
    await page.goto("/signin");
    await fillSignIn(page, org.admin.email, `${org.admin.password}x`);
    await expect(page.getByText("That email and password do not match an account.")).toBeVisible();
    await expect(page).toHaveURL(/\/signin/);
    // An unknown email gets the very same answer.
    await page.goto("/signin");
    await expect(page.getByText("That email and password do not match an account.")).toHaveCount(0);
    await fillSignIn(page, "nobody@e2e-account.example", org.admin.password);
    await expect(page.getByText("That email and password do not match an account.")).toBeVisible();
    await page.goto("/dashboard/settings");
    await expect(page).toHaveURL(/\/signin/);
  });

  test("signing out ends the session: the dashboard sends you back to sign in", async ({ page }) => {
    await page.goto("/signin");
    await fillSignIn(page, org.member.email, org.member.password);
    await expect(page).toHaveURL(/\/dashboard$/);
    await expect(page.getByRole("banner").getByText("member", { exact: true })).toBeVisible();
    await page.getByRole("button", { name: "Sign out" }).click();
    await expect(page).toHaveURL(/\/signin/);
    for (const target of ["/dashboard", "/dashboard/api-keys"]) {
      await page.goto(target);
      await expect(page).toHaveURL(/\/signin/);
    }
  });

  test("a signed-out visitor of any dashboard page is sent to sign in, and back there afterwards", async ({ page }) => {
    for (const target of DASHBOARD_PAGES) {
      const response = await page.goto(target);
      await expect(page, `${target} must redirect`).toHaveURL(/\/signin/);
      expect(response?.status()).toBe(200);
      await expect(page.getByRole("heading", { name: "Sign in to Points" })).toBeVisible();
      await expect(page.locator("body")).not.toContainText("Payment method ID");
    }
    await page.goto("/dashboard/limits");
    await fillSignIn(page, org.admin.email, org.admin.password);
    await expect(page).toHaveURL(/\/dashboard\/limits$/);
    await expect(page.getByRole("heading", { name: "Limits", level: 1 })).toBeVisible();
  });
});

test.describe("sessions and sign-in that hold against attacks", () => {
  const org = accountFixtures().signin;

  test("a session forged with the secret this repository once published opens nothing", async ({ page, context }) => {
    // The constant that signed sessions when AUTH_SECRET was unset, before no secret lived in the code.
    const publishedSecret = "points-development-secret-do-not-use-in-production";
    // Everything a real session carries (the user's current session version included) but the secret.
    const forged = await encode({
      token: { sub: org.admin.userId, email: org.admin.email, sv: 0 },
      secret: publishedSecret,
    });
    const baseURL = test.info().project.use.baseURL ?? "http://127.0.0.1:3100";
    // Under both names: production reads the __Secure- one (lib/auth/cookies.ts).
    const { hostname } = new URL(baseURL);
    await context.addCookies([
      { name: "next-auth.session-token", value: forged, url: baseURL },
      { name: "__Secure-next-auth.session-token", value: forged, domain: hostname, path: "/", secure: true },
    ]);
    for (const target of ["/dashboard", "/dashboard/api-keys"]) {
      await page.goto(target);
      await expect(page).toHaveURL(/\/signin/);
    }
    await expect(page.getByRole("button", { name: "Create API key" })).toHaveCount(0);
  });

  test("after ten failures an email is paused, and the page says for how long", async ({ page }) => {
    // Eleven sign-in attempts, each one hashed (scrypt, by design slow): near 30 s on a busy CI machine.
    test.slow();
    const email = `throttled-${Date.now().toString(36)}@e2e-account.example`;
    await page.goto("/signin");
    for (let i = 0; i < 10; i += 1) {
      await fillSignIn(page, email, `guess-${i}`);
      await expect(page.getByText("That email and password do not match an account.")).toBeVisible();
    }
    await fillSignIn(page, email, "guess-11");
    await expect(page.getByText("Too many failed sign-ins; try again in 15 minutes.")).toBeVisible();
  });

  test("an empty form asks for the email, not the password", async ({ page }) => {
    await page.goto("/signin");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByText("Enter your email address.")).toBeVisible();
    await expect(page.getByText("That email and password do not match an account.")).toHaveCount(0);
  });

  for (const callbackUrl of ["/\\evil.example", "//evil.example", "https://evil.example/", "/\t/evil.example"]) {
    test(`sign-in never follows callbackUrl ${callbackUrl} off this site`, async ({ page }) => {
      await page.goto(`/signin?callbackUrl=${encodeURIComponent(callbackUrl)}`);
      await fillSignIn(page, org.member.email, org.member.password);
      await expect(page).toHaveURL(/127\.0\.0\.1:\d+\/dashboard$/);
    });
  }

  test("signing out says so on the sign-in page", async ({ page }) => {
    await page.goto("/signin");
    await fillSignIn(page, org.member.email, org.member.password);
    await expect(page).toHaveURL(/\/dashboard$/);
    await page.getByRole("button", { name: "Sign out" }).click();
    await expect(page.getByText("You have been signed out.")).toBeVisible();
  });
});
