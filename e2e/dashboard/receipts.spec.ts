import path from "node:path";
import { axeViolations } from "../accessibility";
import { expect, test } from "../fixtures";
import { expectPaidNow, postTopUp } from "../utils";
import { SCREENSHOTS } from "./buy.fixtures";
import { accountFixtures, signIn } from "./journey-helpers";

/* A paid purchase's receipt: reached from the purchase, named by the API's receipt_url, and printable. */

const org = () => accountFixtures().receipts;

test("a paid purchase has a receipt an accountant can print, at the URL the API gives", async ({ page, request }) => {
  const bought = await expectPaidNow(
    await postTopUp(request, org().apiKey, { points: 250, reference: `receipt-${Date.now()}` }),
  );
  const receiptUrl = bought.top_up.receipt_url ?? "";
  expect(new URL(receiptUrl, "http://x").pathname).toBe(`/dashboard/receipts/${bought.top_up.id}`);

  await signIn(page, org().admin);
  await page.goto(`/dashboard/buy/${bought.top_up.id}`);
  await page.getByRole("link", { name: "Receipt", exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`/dashboard/receipts/${bought.top_up.id}$`));
  const details = page.getByRole("definition");
  await expect(page.getByRole("heading", { level: 1 })).toContainText("250 Points · ");
  await expect(page.getByLabel("Receipt details")).toContainText("Account receipts");
  await expect(page.getByLabel("Receipt details")).toContainText(bought.top_up.id);
  await expect(page.getByLabel("Receipt details")).toContainText("Visa •••• 4242");
  expect(await details.count()).toBeGreaterThanOrEqual(7);
  expect(await axeViolations(page)).toEqual([]);
  await page.screenshot({ path: path.join(SCREENSHOTS, "receipt.png"), fullPage: true });

  // Printed, only the receipt remains: no header, navigation, buttons or footer links.
  await page.emulateMedia({ media: "print" });
  await expect(page.getByRole("navigation", { name: "Dashboard" })).toBeHidden();
  await expect(page.getByRole("button", { name: "Print or save as PDF" })).toBeHidden();
  await expect(page.getByText("Billed to")).toBeVisible();
  await page.emulateMedia({ media: "screen" });

  // An unknown purchase (or another organisation's) has no receipt.
  const missing = await page.goto(`/dashboard/receipts/tu_${"x".repeat(20)}`);
  expect(missing?.status()).toBe(404);
});
