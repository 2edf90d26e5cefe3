import { expect, test } from "@playwright/test";

/*
 * The API reference and the guide on a phone (390 px): the page never scrolls sideways (wide tables
 * and code scroll inside their own box), and its text stays large enough to read.
 */

for (const url of ["/docs", "/docs/guide"]) {
  test(`${url} fits a phone's width and reads at a readable size`, async ({ page }) => {
    await page.goto(url);
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();

    const widths = await page.evaluate(() => ({
      scroll: document.scrollingElement?.scrollWidth ?? Number.POSITIVE_INFINITY,
      inner: window.innerWidth,
    }));
    expect(widths.inner).toBe(390);
    expect(widths.scroll, `${url} scrolls sideways`).toBeLessThanOrEqual(widths.inner);

    // Every paragraph, list item, table cell and code block with text: 14 px or more.
    const small = await page.evaluate(() =>
      [...document.querySelectorAll("main p, main li, main td, main th, main pre")]
        .filter((element) => (element.textContent ?? "").trim() !== "")
        .map((element) => ({
          text: (element.textContent ?? "").trim().slice(0, 40),
          size: Number.parseFloat(getComputedStyle(element).fontSize),
        }))
        .filter(({ size }) => size < 14),
    );
    expect(small, `${url} has text under 14 px`).toEqual([]);

    // A wide table or code block scrolls inside itself, not the page.
    const boxes = await page.evaluate(
      () =>
        [...document.querySelectorAll("main *")].filter(
          (element) =>
            ["auto", "scroll"].includes(getComputedStyle(element).overflowX) &&
            element.scrollWidth > element.clientWidth + 1,
        ).length,
    );
    expect(boxes, `${url} has a box wider than the screen that scrolls inside itself`).toBeGreaterThan(0);
  });
}
