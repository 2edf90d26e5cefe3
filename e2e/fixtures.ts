import fs from "node:fs";
import path from "node:path";
import { test as base } from "@playwright/test";
import type { E2eFixtures } from "./fixture-types";

export { expect } from "@playwright/test";
export type { E2eFixtures, FixtureOrganization, FixturePaymentMethod } from "./fixture-types";

const FIXTURES_FILE = path.join(process.cwd(), "e2e", ".artifacts", "fixtures.json");

/** The organisations and keys e2e/serve.ts provisioned for this run (written before the server starts). */
export function readFixtures(): E2eFixtures {
  if (!fs.existsSync(FIXTURES_FILE)) {
    throw new Error(`${FIXTURES_FILE} is missing: the tests must run under the webServer of playwright.config.ts.`);
  }
  return JSON.parse(fs.readFileSync(FIXTURES_FILE, "utf8")) as E2eFixtures;
}

export const test = base.extend<object, { fx: E2eFixtures }>({
  fx: [
    // Playwright requires the first argument to be a destructuring pattern, even an empty one.
    // biome-ignore lint/correctness/noEmptyPattern: Playwright reads fixture names from this pattern.
    async ({}, use) => {
      await use(readFixtures());
    },
    { scope: "worker" },
  ],
});
