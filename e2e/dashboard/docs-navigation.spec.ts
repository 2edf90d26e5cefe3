import path from "node:path";
import { expect, test } from "@playwright/test";
import { axeViolations } from "../accessibility";
import { DOCS_PAGES, missingTargets, SCREENSHOTS } from "../docs-navigation";

/*
 * The documentation pages at 1280 px (e2e/docs-navigation.ts): their contents are a list beside the
 * page that stays in view however far it scrolls, and each of its links lands on a section of it.
 */

for (const doc of DOCS_PAGES) {
  test(`${doc.url}: the contents stay beside the page as it scrolls, and lead to each section`, async ({ page }) => {
    // axe reads the whole page, which is long: most of the time goes there.
    test.slow();
    await page.goto(doc.url);
    const contents = page.getByRole("navigation", { name: doc.label });
    const heading = page.getByRole("heading", { level: 1 });
    await expect(contents).toBeVisible();
    // The phone's bar is not shown beside the list.
    await expect(page.locator("details[data-phone-menu]")).toBeHidden();
    expect(await missingTargets(contents)).toEqual([]);
    expect(await contents.getByRole("link").count()).toBeGreaterThan(10);
    const list = await contents.boundingBox();
    const title = await heading.boundingBox();
    expect(list && title && list.x + list.width <= title.x, "the list is beside the page, on its left").toBe(true);

    // Far down the page, the list is still at the top of the window.
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight * 0.6));
    await expect(heading).not.toBeInViewport();
    await expect(contents).toBeInViewport();
    const scrolled = await contents.boundingBox();
    expect(scrolled?.y).toBeGreaterThanOrEqual(0);
    expect(scrolled?.y).toBeLessThan(40);

    // A link lands its section at the top of the window, and the list stays.
    await page.evaluate(() => window.scrollTo(0, 0));
    await contents.locator(`a[href="#${doc.jump}"]`).click();
    await expect(page).toHaveURL(new RegExp(`#${doc.jump}$`));
    const target = page.locator(`[id="${doc.jump}"]`);
    await expect(target).toBeInViewport();
    const landed = await target.boundingBox();
    expect(landed?.y).toBeGreaterThanOrEqual(0);
    expect(landed?.y).toBeLessThan(60);
    await expect(contents).toBeInViewport();
    await page.mouse.move(640, 0);
    await page.screenshot({ path: path.join(SCREENSHOTS, `${doc.name}-1280.png`) });

    expect(await axeViolations(page)).toEqual([]);
  });
}
