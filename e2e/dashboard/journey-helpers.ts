import type { Page } from "@playwright/test";
import { readFixtures } from "../fixtures";
import type { AccountFixtures } from "./account.fixtures";

/** The organisations e2e/serve.ts provisioned for the account journeys (see account.fixtures.ts). */
/** Every page of the dashboard, in the order of its navigation. */
export const DASHBOARD_PAGES = [
  "/dashboard",
  "/dashboard/buy",
  "/dashboard/history",
  "/dashboard/payment-details",
  "/dashboard/settings",
  "/dashboard/api-keys",
  "/dashboard/webhooks",
  "/dashboard/limits",
  "/dashboard/members",
  "/dashboard/audit",
  "/dashboard/account",
];

export function accountFixtures(): AccountFixtures {
  const all: object = readFixtures();
  if (!("account" in all)) throw new Error("fixtures.json has no `account` key: provisionAccountFixtures did not run.");
  return all.account as AccountFixtures;
}

/** Signing in through the real form, and the header's balance: one of each for every spec. */
export { headerBalance, signIn } from "./buy.fixtures";

/** Every POST body the page sends from now on (server actions are POSTs to the page's own URL). */
export function recordPostBodies(page: Page): string[] {
  const bodies: string[] = [];
  page.on("request", (request) => {
    if (request.method() === "POST") bodies.push(request.postData() ?? "");
  });
  return bodies;
}
