import { axeViolations, dashboardPages, makePurchases, PUBLIC_PAGES } from "../accessibility";
import { accountFixtures, signIn } from "../dashboard/journey-helpers";
import { expect, test } from "../fixtures";

/* The same axe check as e2e/dashboard/accessibility.spec.ts on a phone, where History's rows are cards and the
 * tabs open from a menu: every page, public and (as an admin) dashboard, with no WCAG 2.1 A or AA violation; the
 * two sets are two tests, so that each has its own time and they run side by side. */

const org = accountFixtures().accessibility;
const visa = org.paymentMethods.find((method) => method.kind === "visa")?.id ?? "";

test("every public page on a phone has no WCAG 2.1 AA violations", async ({ page }) => {
  test.slow();
  const found: string[] = [];
  for (const url of PUBLIC_PAGES) {
    await page.goto(url);
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    found.push(...(await axeViolations(page)));
  }
  expect(found).toEqual([]);
});

test("every dashboard page on a phone, as an admin, has no WCAG 2.1 AA violations", async ({ page, request }) => {
  test.slow();
  const found: string[] = [];
  const purchases = await makePurchases(request, org, "phone");
  await signIn(page, org.admin);
  for (const url of dashboardPages(purchases, visa)) {
    await page.goto(url);
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    found.push(...(await axeViolations(page)));
  }
  // The header's menu, open over the Overview.
  await page.goto("/dashboard");
  await page.getByTestId("dashboard-menu").locator("summary").tap();
  await expect(page.getByTestId("dashboard-menu").getByRole("navigation", { name: "Dashboard" })).toBeVisible();
  found.push(...(await axeViolations(page)));
  expect(found).toEqual([]);
});
