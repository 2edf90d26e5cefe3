import path from "node:path";
import type { Page } from "@playwright/test";
import { axeViolations } from "../accessibility";
import { expect, test } from "../fixtures";
import { SCREENSHOTS } from "./buy.fixtures";
import { accountFixtures, signIn } from "./journey-helpers";

/*
 * An expiry said before it bites (docs/contract.md §10): the Overview names the next one, the Buy page
 * says when the Points would expire before paying, and the purchase's page and its receipt say when
 * they do; at 1280 and at 390 px, with no accessibility violation.
 */

const org = () => accountFixtures().expiry;
const DAY = 24 * 3600 * 1000;
const day = (date: Date) => new Intl.DateTimeFormat("en-GB", { dateStyle: "medium", timeZone: "UTC" }).format(date);

async function fitsAndPasses(page: Page, where: string) {
  await page.screenshot({ path: path.join(SCREENSHOTS, `expiry-${where.replaceAll(" ", "-")}.png`), fullPage: true });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow, `${where} scrolls sideways`).toBeLessThanOrEqual(0);
  expect(await axeViolations(page), `${where}: accessibility`).toEqual([]);
}

test("the expiry is said on the Overview, before paying, on the purchase's page and on its receipt", async ({
  page,
}) => {
  await signIn(page, org().admin);
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await page.goto("/dashboard");
    // The grant of 1,200 Points that expires in 20 days.
    await expect(page.getByTestId("overview-next-expiry")).toHaveText(/^1,200 Points expire on \d{1,2} \w{3} \d{4}$/);
    await fitsAndPasses(page, `Overview at ${width}`);

    await page.goto("/dashboard/buy");
    await page.locator('label[for="bundle-100"]').click();
    await page.getByRole("button", { name: "Review purchase" }).click();
    // A year from now (the organisation's paid_points_expire_after_days), said before Buy.
    await expect(page.getByTestId("confirm-expiry")).toContainText(
      `These Points expire on ${day(new Date(Date.now() + 365 * DAY))}`,
    );
    await fitsAndPasses(page, `Buy at ${width}`);
    await page.getByRole("button", { name: /^Buy / }).click();
    await page.waitForURL(/\/dashboard\/history\/tu_\w+\?bought=1$/);
    await expect(page.getByTestId("purchase-expiry")).toContainText(
      `These Points expire on ${day(new Date(Date.now() + 365 * DAY))}`,
    );
    await fitsAndPasses(page, `the purchase at ${width}`);
    await page.getByRole("link", { name: "Receipt", exact: true }).click();
    await expect(page.getByLabel("Receipt details")).toContainText("These Points expire on");
    await fitsAndPasses(page, `the receipt at ${width}`);
    // Pages this round changed besides: History's filters in one row, Settings' labelled test cards.
    await page.goto("/dashboard/history?from=2026-11-01&to=2026-11-30");
    await expect(page.getByTestId("history-range")).toBeVisible();
    await fitsAndPasses(page, `History at ${width}`);
    await page.goto("/dashboard/settings");
    await fitsAndPasses(page, `Settings at ${width}`);
  }
});
