import fs from "node:fs";
import path from "node:path";
import { type APIRequestContext, type APIResponse, test as base } from "@playwright/test";
import { checkAgainstDocument } from "@/lib/testing/openapi-check";
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

/**
 * The `request` every spec gets: Playwright's own, but every answer it receives under /v3 is held
 * to the OpenAPI document (lib/testing/openapi-check.ts) before the spec sees it, so a response the
 * document does not describe fails the test that received it.
 */
function checkedAgainstDocument(request: APIRequestContext): APIRequestContext {
  const check = async (method: string, url: string, response: APIResponse): Promise<APIResponse> => {
    const path = new URL(url).pathname;
    if (!path.startsWith("/v3/")) return response;
    const problems = checkAgainstDocument({
      method,
      path,
      status: response.status(),
      headers: response.headers(),
      body: method === "HEAD" ? "" : await response.text(),
    });
    if (problems.length > 0) {
      throw new Error(
        `${method} ${path} → ${response.status()} disagrees with GET /v3/openapi.json:\n- ${problems.join("\n- ")}`,
      );
    }
    return response;
  };
  const verbs = { get: "GET", post: "POST", put: "PUT", patch: "PATCH", delete: "DELETE", head: "HEAD" } as const;
  return new Proxy(request, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== "function") return value;
      if (property === "fetch") {
        return async (
          input: Parameters<APIRequestContext["fetch"]>[0],
          options?: Parameters<APIRequestContext["fetch"]>[1],
        ) => {
          const response = await target.fetch(input, options);
          const method = (options?.method ?? (typeof input === "string" ? "GET" : input.method())).toUpperCase();
          return check(method, response.url(), response);
        };
      }
      if (typeof property === "string" && property in verbs) {
        const method = verbs[property as keyof typeof verbs];
        return async (...args: unknown[]) => {
          const response = (await (value as (...args: unknown[]) => Promise<APIResponse>).apply(
            target,
            args,
          )) as APIResponse;
          return check(method, response.url(), response);
        };
      }
      return value.bind(target);
    },
  });
}

export const test = base.extend<object, { fx: E2eFixtures }>({
  request: async ({ request }, use) => {
    await use(checkedAgainstDocument(request));
  },
  fx: [
    // Playwright requires the first argument to be a destructuring pattern, even an empty one.
    // biome-ignore lint/correctness/noEmptyPattern: Playwright reads fixture names from this pattern.
    async ({}, use) => {
      await use(readFixtures());
    },
    { scope: "worker" },
  ],
});
