import type { Page } from "@playwright/test";
import { expect, readFixtures } from "../fixtures";
import type { AccountFixtures, AccountFixtureUser } from "./account.fixtures";

/** The organisations e2e/serve.ts provisioned for the account journeys (see account.fixtures.ts). */
export function accountFixtures(): AccountFixtures {
  const all: object = readFixtures();
  if (!("account" in all)) throw new Error("fixtures.json has no `account` key: provisionAccountFixtures did not run.");
  return all.account as AccountFixtures;
}

export async function signIn(page: Page, user: Pick<AccountFixtureUser, "email" | "password">): Promise<void> {
  await page.goto("/signin");
  await page.getByLabel("Email").fill(user.email);
  await page.getByLabel("Password").fill(user.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/dashboard$/);
}

/** Every POST body the page sends from now on (server actions are POSTs to the page's own URL). */
export function recordPostBodies(page: Page): string[] {
  const bodies: string[] = [];
  page.on("request", (request) => {
    if (request.method() === "POST") bodies.push(request.postData() ?? "");
  });
  return bodies;
}
