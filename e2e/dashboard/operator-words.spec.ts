import fs from "node:fs";
import { expect, type Page, test } from "@playwright/test";
import { readFixtures } from "../fixtures";
import type { AfterPaymentFixtures } from "./after-payment.fixtures";
import type { BillingProblemFixtures } from "./billing-problem.fixtures";
import { signIn } from "./buy.fixtures";

/*
 * A customer's admins are never shown a shell command, nor a setting only the service's operator
 * can change: not on any dashboard page, not when the billing provider refuses their organisation.
 * How to mend that is in the server's log, for the operator.
 */

const PAGES = [
  "/dashboard",
  "/dashboard/buy",
  "/dashboard/history",
  "/dashboard/payment-details",
  "/dashboard/settings",
  "/dashboard/limits",
  "/dashboard/api-keys",
  "/dashboard/members",
];
const OPERATOR_ONLY = ["npm run", "points --", "--stripe-customer", "STRIPE_SECRET_KEY"];

let problem: BillingProblemFixtures;
let afterPayment: AfterPaymentFixtures;
let logFile = "";

test.beforeAll(() => {
  const all = readFixtures();
  problem = all.billingProblem as unknown as BillingProblemFixtures;
  afterPayment = all.afterPayment as unknown as AfterPaymentFixtures;
  logFile = all.observability?.logFile ?? "";
});

async function expectNoOperatorWords(page: Page, pathname: string): Promise<void> {
  const response = await page.goto(pathname);
  expect(response?.status(), pathname).toBe(200);
  // What a person reads on the page (its rendered text), not the scripts behind it.
  for (const words of OPERATOR_ONLY) {
    await expect(page.locator("body"), `${pathname} shows "${words}"`).not.toContainText(words, { useInnerText: true });
  }
}

test("no dashboard page shows a shell command, a purchase's page included", async ({ page }) => {
  await signIn(page, afterPayment.admin);
  for (const pathname of [
    ...PAGES,
    `/dashboard/buy/${afterPayment.refunded.topUpId}`,
    `/dashboard/buy/${afterPayment.disputed.topUpId}`,
  ]) {
    await expectNoOperatorWords(page, pathname);
  }
});

test("an organisation whose customer the provider lost is told to contact support; the operator's log says how to relink it", async ({
  page,
}) => {
  await signIn(page, problem.admin);
  for (const pathname of PAGES) await expectNoOperatorWords(page, pathname);
  for (const pathname of ["/dashboard", "/dashboard/buy", "/dashboard/payment-details", "/dashboard/settings"]) {
    await page.goto(pathname);
    const notice = page.getByTestId("billing-problem");
    await expect(notice, pathname).toContainText("Payments are unavailable right now");
    await expect(notice, pathname).toContainText("no longer knows this organisation's customer account");
    await expect(notice, pathname).toContainText("Contact support");
  }
  const relink = `npm run points -- org update ${problem.id} --stripe-customer cus_… or --new-stripe-customer`;
  await expect
    .poll(() =>
      fs
        .readFileSync(logFile, "utf8")
        .split("\n")
        .filter((line) => line.startsWith("{") && line.includes(problem.customerId))
        .map((line) => JSON.parse(line) as { level?: string; msg?: string; organization_id?: string }),
    )
    .toContainEqual(
      expect.objectContaining({ level: "error", organization_id: problem.id, msg: expect.stringContaining(relink) }),
    );
});
