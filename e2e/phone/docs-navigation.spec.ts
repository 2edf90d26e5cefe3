import path from "node:path";
import { expect, test } from "@playwright/test";
import { axeViolations } from "../accessibility";
import { DOCS_PAGES, missingTargets, SCREENSHOTS } from "../docs-navigation";

/*
 * The documentation pages on a phone (390 px; e2e/docs-navigation.ts): their contents are a
 * "Contents" bar at the top of the screen, closed until tapped, that opens the list over the page;
 * a link in it lands on its section below the bar and closes the list. The page starts close below
 * the bar.
 */

for (const doc of DOCS_PAGES) {
  test(`${doc.url}: a Contents bar, closed until tapped, leads to a section and closes`, async ({ page }) => {
    // axe reads the whole page, which is long: most of the time goes there.
    test.slow();
    await page.goto(doc.url);
    const menu = page.locator("details[data-phone-menu]");
    const summary = menu.locator("summary");
    const contents = page.getByRole("navigation", { name: doc.label });
    const viewport = page.viewportSize() ?? { width: 390, height: 844 };

    await expect(summary).toBeVisible();
    await expect(summary).toHaveText("Contents");
    await expect(menu).not.toHaveAttribute("open");
    await expect(contents).toBeHidden();
    // One line high, and the page's title right below it.
    const bar = await summary.boundingBox();
    const title = await page.getByRole("heading", { level: 1 }).boundingBox();
    expect(bar?.height).toBeLessThanOrEqual(56);
    expect(title?.y).toBeLessThan(250);
    await page.screenshot({ path: path.join(SCREENSHOTS, `${doc.name}-390.png`), scale: "css" });

    // Opened, the list lies over the page and scrolls inside itself; axe finds nothing wrong with the page
    // with it open (e2e/phone/accessibility.spec.ts checks it closed).
    await expect(menu).toHaveAttribute("data-enhanced", "true");
    await summary.click();
    await expect(contents).toBeVisible();
    expect(await missingTargets(contents)).toEqual([]);
    const list = await contents.boundingBox();
    expect(list?.height).toBeLessThanOrEqual(viewport.height * 0.75);
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: path.join(SCREENSHOTS, `${doc.name}-390-contents.png`), scale: "css" });

    // Escape closes it and leaves the focus on the bar.
    await page.keyboard.press("Escape");
    await expect(menu).not.toHaveAttribute("open");
    await expect(summary).toBeFocused();

    // A link lands its section just below the bar, which stays at the top, and the list closes.
    await summary.click();
    await contents.locator(`a[href="#${doc.jump}"]`).click();
    await expect(page).toHaveURL(new RegExp(`#${doc.jump}$`));
    await expect(menu).not.toHaveAttribute("open");
    const target = page.locator(`[id="${doc.jump}"]`);
    await expect(target).toBeInViewport();
    const stuck = await summary.boundingBox();
    const landed = await target.boundingBox();
    expect(stuck?.y).toBe(0);
    expect(landed && stuck && landed.y >= stuck.y + stuck.height, "the section starts below the bar").toBe(true);
    expect(landed?.y).toBeLessThan(120);
    await page.screenshot({ path: path.join(SCREENSHOTS, `${doc.name}-390-section.png`), scale: "css" });
  });
}
