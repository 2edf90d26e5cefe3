import { axeViolations, dashboardPages, makePurchases, PUBLIC_PAGES } from "../accessibility";
import { expect, test } from "../fixtures";
import { accountFixtures, signIn } from "./journey-helpers";

/*
 * Every page, checked by axe against WCAG 2.1 A and AA: the public pages, and each dashboard page as
 * an admin and as a member (they differ: forms for one, view-only notices for the other). Each test
 * collects every page's violations and fails once, listing them all.
 */

const org = accountFixtures().accessibility;
const visa = org.paymentMethods.find((method) => method.kind === "visa")?.id ?? "";

test("the public pages have no WCAG 2.1 AA violations", async ({ page }) => {
  // The API guide at /docs/guide now holds every example to paste: axe takes longest on it.
  test.slow();
  const found: string[] = [];
  for (const url of PUBLIC_PAGES) {
    await page.goto(url);
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    found.push(...(await axeViolations(page)));
  }
  expect(found).toEqual([]);
});

for (const role of ["admin", "member"] as const) {
  test(`every dashboard page, as ${role === "admin" ? "an admin" : "a member"}, has no WCAG 2.1 AA violations`, async ({
    page,
    request,
  }) => {
    // A dozen pages, each analysed by axe: near a minute on a busy CI machine.
    test.slow();
    const purchases = await makePurchases(request, org, role);
    await signIn(page, org[role]);
    const found: string[] = [];
    for (const url of dashboardPages(purchases, visa)) {
      await page.goto(url);
      await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
      found.push(...(await axeViolations(page)));
    }
    expect(found).toEqual([]);
  });
}
