import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import type { Locator, Page } from "@playwright/test";
import { SCREENSHOTS } from "../dashboard/buy.fixtures";
import { accountFixtures, signIn } from "../dashboard/journey-helpers";
import { expect, test } from "../fixtures";
import { TOP_UPS } from "../utils";

/*
 * The pages with the widest rows, on a phone (390 x 844): Webhooks with an endpoint and its
 * deliveries, the Audit log and History. Nothing scrolls sideways, and every part of a row (a
 * delivery's next try and "Send again", an audit entry's action and target) is on screen when
 * scrolled to, not cut off inside a box that scrolls.
 */

const org = () => accountFixtures().phoneWide;
let server: http.Server;
let url = "";

test.beforeAll(async () => {
  let calls = 0;
  // Answers 500 to every other call, so the log holds a delivery that will be tried again.
  server = http.createServer((request, response) => {
    request.resume();
    request.on("end", () => response.writeHead(calls++ % 2 === 0 ? 200 : 500).end("ok"));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/a-rather-long-path/to-the-points-webhook-receiver`;
});

test.afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function expectFitsTheScreen(page: Page, where: string): Promise<void> {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow, `${where} scrolls sideways`).toBeLessThanOrEqual(0);
}

/** Every cell of a row, scrolled to, is wholly on screen: none is cut off or left in a sideways scroll. */
async function expectWholeOnScreen(page: Page, row: Locator, what: string): Promise<void> {
  await row.scrollIntoViewIfNeeded();
  for (const cell of await row.locator("td").all()) {
    if ((await cell.textContent())?.trim() === "") continue;
    await cell.scrollIntoViewIfNeeded();
    await expect(cell, `${what}: ${await cell.textContent()}`).toBeInViewport({ ratio: 1 });
  }
  const width = await page.evaluate(() => window.innerWidth);
  const box = await row.boundingBox();
  expect(box && box.x + box.width, `${what} fits the width`).toBeLessThanOrEqual(width);
}

test("Webhooks, the Audit log and History fit a phone, with every part of their rows on screen", async ({
  page,
  request,
}) => {
  await signIn(page, org().admin);
  await page.goto("/dashboard/webhooks");
  await page.getByLabel("Endpoint URL").fill(url);
  await page.getByRole("button", { name: "Add endpoint" }).click();
  await expect(page.getByTestId("new-webhook-secret-value")).toBeVisible();
  for (const [index, card] of ["visa", "declined", "visa"].entries()) {
    const method = org().paymentMethods.find((candidate) => candidate.kind === card);
    const bought = await request.post(TOP_UPS, {
      headers: { Authorization: `Bearer ${org().apiKey}` },
      data: { points: 100, reference: `wide-${Date.now()}-${index}`, payment_source_id: method?.id },
    });
    expect([201, 402]).toContain(bought.status());
  }
  const deliveries = page.getByTestId("webhook-delivery");
  await expect
    .poll(
      async () => {
        await page.reload();
        return deliveries.count();
      },
      { timeout: 20_000 },
    )
    .toBeGreaterThanOrEqual(3);
  await expectFitsTheScreen(page, "Webhooks");
  for (const delivery of await deliveries.all()) await expectWholeOnScreen(page, delivery, "a delivery");
  await expect(page.getByRole("button", { name: "Send again" }).first()).toBeVisible();
  await page.getByTestId("webhook-endpoint").screenshot({ path: path.join(SCREENSHOTS, "phone-webhooks.png") });

  await page.goto("/dashboard/audit");
  await expectFitsTheScreen(page, "Audit log");
  const entries = page.getByTestId("audit-entry");
  await expect(entries.first()).toBeVisible();
  for (const entry of (await entries.all()).slice(0, 4)) await expectWholeOnScreen(page, entry, "an audit entry");
  await page.getByRole("table", { name: "Audit log" }).screenshot({ path: path.join(SCREENSHOTS, "phone-audit.png") });

  await page.goto("/dashboard/history");
  await expectFitsTheScreen(page, "History");
  await page.screenshot({ path: path.join(SCREENSHOTS, "phone-history.png"), fullPage: true });
});
